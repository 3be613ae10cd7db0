// HybridBluetooth's parsers: HCI events with their LE advertising reports, and D-Bus messages.
import FuzzDriver
@_spi(Fuzzing) import HybridFuzzOracles

runFuzzer([
    "hciEvent": BluetoothFuzzEntryPoints.hciEvent,
    "dbusMessage": BluetoothFuzzEntryPoints.dbusMessage,
])
