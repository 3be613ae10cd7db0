// Advertises FIDO service data and scans for it on the simulated air: the same `BLEAdvertiser` and
// `BLEScanner` interfaces that `.hci` and `.bluez` implement on a real controller.
import HybridBluetooth
import Logging

let backend = BLEBackend.simulated(SimulatedAir(directory: SimulatedAir.defaultDirectory()))
let logger = Logger(label: "ble")
let advert = BLEServiceDataAdvert(serviceData: [UInt8](repeating: 0xAB, count: 20))
let seen = try await backend.makeAdvertiser(logger: logger).withAdvertising(advert) { () -> BLEAdvertisement? in
    for try await advertisement in try await backend.makeScanner(logger: logger).scan() {
        return advertisement
    }
    return nil
}
print("saw", seen.map { "\($0)" } ?? "nothing")
