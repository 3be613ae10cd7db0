import Foundation
import TestChildProcess
import Testing

@testable import HybridBluetooth

#if canImport(Glibc)
    import Glibc
#endif

/// The simulated air reaches only its owner's processes: another local user who learns where a
/// scanner listens (a UDP port was in /proc/net/udp for everyone to read) cannot inject an advert.
/// The scanner's socket lives in the air's 0700 directory, so the kernel refuses the sender.
@Suite(.timeLimit(.minutes(1)))
struct SimulatedAirIsolationTests {
    /// Sends one datagram, as whoever runs it, to the scanner named `name` in `directory`: to its
    /// Unix socket, or to the UDP port an older layout's `scanner-PID-PORT` file named.
    static let intruder = """
        import os, socket, sys
        data, directory, name = bytes.fromhex(sys.argv[1]), sys.argv[2], sys.argv[3]
        try:
            if name.endswith('.sock'):
                socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(data, os.path.join(directory, name))
            else:
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(data, ('127.0.0.1', int(name.split('-')[2])))
            print('sent')
        except OSError as error:
            print('refused:', error.strerror)
        """

    /// The system's Python, which every user may run (root's PATH may lead to a private one).
    static let python = "/usr/bin/python3"

    @Test(
        .enabled(if: geteuid() == 0, "sending as another user (nobody) needs root, as in CI"),
        .enabled(if: FileManager.default.isExecutableFile(atPath: python), "needs \(python)"))
    func anotherUserCannotInjectAnAdvert() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        let stream = try await SimulatedAirScanner(air: air, logger: TestSupport.logger).scan()
        let names = try FileManager.default.contentsOfDirectory(atPath: air.directory)
        let name = try #require(names.first { $0.hasPrefix("scanner-") })
        let forged = SimulatedAirDatagram.encode(
            address: BLEAddress(littleEndian: [1, 2, 3, 4, 5, 6]), uuid16: 0xFFF9, serviceData: TestSupport.eid(0xEE))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=65534", "--regid=65534", "--clear-groups", "--", Self.python, "-c", Self.intruder,
            forged.map { String(format: "%02x", $0) }.joined(), air.directory, name,
        ]
        let output = try await ChildProcess.run(process)
        let said = String(decoding: output.stdout, as: UTF8.self)
        #expect(output.status == 0, "stderr: \(String(decoding: output.stderr, as: UTF8.self))")
        #expect(said.hasPrefix("refused: Permission denied"), "the intruder: \(said)")

        // Whatever reached the socket is queued before this advert: the first one heard must be ours.
        let advertiser = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        try await advertiser.withAdvertising(BLEServiceDataAdvert(serviceData: TestSupport.eid(1))) {
            let first = try await TestSupport.firstAdvert(from: stream, within: .seconds(10))
            #expect(first?.serviceData == TestSupport.eid(1), "heard the other user's advert first")
        }
    }
}
