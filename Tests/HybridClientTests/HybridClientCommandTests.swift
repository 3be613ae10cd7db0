import ArgumentParser
import Foundation
import HybridCTAP
import HybridCore
import Testing

@testable import HybridClient
@testable import hybrid_client

/// The CLI's stable interface: flags, the user's own tunnel servers, exit statuses.
@Suite struct HybridClientCommandTests {
    @Test func getParsesTheStableFlags() throws {
        let command = try HybridClientCommand.parseAsRoot([
            "get", "--options", "-", "--origin", "https://example.com", "--ble", "hci", "--adapter", "hci1", "--json",
            "--qr-file", "qr.svg", "--timeout", "7.5", "--tunnel-server", "0=ws://127.0.0.1:8080",
            "--tunnel-server", "1=ws://[::1]:9",
        ])
        let get = try #require(command as? GetCommand)
        #expect(get.options == "-")
        #expect(get.connection.json)
        #expect(get.connection.qr.qrFile == "qr.svg")
        #expect(get.connection.times.timeout == 7.5)
        #expect(get.connection.times.linger == 180)  // protocol.md §7.5: up to 3 minutes
        #expect(
            try get.connection.tunnel.tunnelServerMap() == [
                .google: TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: 8080),
                .apple: TunnelServerOrigin(scheme: .ws, host: "::1", port: 9),
            ])
    }

    @Test func tunnelServerReachesTheRunnerOptions() async throws {
        let command = try HybridClientCommand.parseAsRoot([
            "get", "--origin", "https://example.com", "--ble", "hci", "--tunnel-server", "0=wss://relay.example.com",
        ])
        let get = try #require(command as? GetCommand)
        let options = try await get.connection.runnerOptions(optionsTimeout: nil)
        #expect(options.tunnelServers == [.google: TunnelServerOrigin(scheme: .wss, host: "relay.example.com")])
        let advertURL = TunnelURL.connect(
            domain: .google, routingID: try #require(RoutingID(bytes: [1, 2, 3])),
            tunnelID: try #require(TunnelID(bytes: [UInt8](repeating: 7, count: 16))))
        #expect(options.tunnelURL(for: advertURL, domain: .google).description.hasPrefix("wss://relay.example.com/"))
        #expect(options.tunnelURL(for: advertURL, domain: .apple) == advertURL)
    }

    @Test func createShortFlags() throws {
        let command = try HybridClientCommand.parseAsRoot([
            "create", "--origin", "https://login.example.com", "--rp-id", "example.com", "--user", "alice",
            "--challenge", "AAEC",
        ])
        let create = try #require(command as? CreateCommand)
        let ceremony = try create.ceremony()
        #expect(ceremony.rpID == "example.com")
        #expect(ceremony.options.user.name == "alice")
        #expect(ceremony.options.challenge == [0, 1, 2])
    }

    @Test(arguments: [
        ["get", "--origin", "https://example.com", "--tunnel-server", "2=ws://127.0.0.1:8080"],
        ["get", "--origin", "https://example.com", "--tunnel-server", "0=http://127.0.0.1:8080"],
        ["get", "--origin", "https://example.com", "--tunnel-server", "ws://127.0.0.1:8080"],
        ["get", "--origin", "https://example.com", "--ble", "wifi"],
        ["get", "--origin", "example.com"],
        ["get", "--origin", "https://example.com", "--timeout", "0"],
        ["get", "--origin", "https://example.com", "--linger", "-1"],
        ["get", "--origin", "https://example.com", "--linger", "soon"],
        ["get", "--origin", "https://example.com", "--ca-file", "/nonexistent/ca.pem"],
        ["create", "--origin", "https://example.com"],
        ["create", "--origin", "https://example.com", "--options", "x.json", "--user", "bob"],
    ])
    func usageErrorsAreRejected(arguments: [String]) {
        #expect(throws: (any Error).self) { try HybridClientCommand.parseAsRoot(arguments) }
    }

    @Test func lingerFlagSetsTheRunnerOption() async throws {
        let command = try HybridClientCommand.parseAsRoot([
            "get", "--origin", "https://example.com", "--ble", "hci", "--linger", "0",
        ])
        let get = try #require(command as? GetCommand)
        #expect(try await get.connection.runnerOptions(optionsTimeout: nil).linger == .zero)
        let longer = try #require(
            try HybridClientCommand.parseAsRoot([
                "get", "--origin", "https://example.com", "--ble", "hci", "--linger", "2.5",
            ]) as? GetCommand)
        #expect(try await longer.connection.runnerOptions(optionsTimeout: nil).linger == .milliseconds(2500))
    }

    @Test func theChannelFlagAndItsEvents() async throws {
        let command = try HybridClientCommand.parseAsRoot([
            "get", "--origin", "https://example.com", "--ble", "hci", "--channel", "l2cap", "--l2cap-timeout", "1.5",
        ])
        let options = try await #require(command as? GetCommand).connection.runnerOptions(optionsTimeout: nil)
        #expect(options.channel == .l2cap && options.l2capTimeout == .milliseconds(1500))
        let plain = try #require(
            try HybridClientCommand.parseAsRoot(["get", "--origin", "https://example.com", "--ble", "hci"])
                as? GetCommand)
        #expect(try await plain.connection.runnerOptions(optionsTimeout: nil).channel == .auto)
        #expect(throws: (any Error).self) {
            try HybridClientCommand.parseAsRoot(["get", "--origin", "https://example.com", "--channel", "usb"])
        }
    }

    @Test func exitStatusesSeparateCTAPErrorsTimeoutsAndFailures() {
        #expect(ExitStatus.forError(.timedOut(stage: .waitingForDevice, after: .seconds(1))) == 2)
        #expect(ExitStatus.forError(.noCredentials) == 3)
        #expect(ExitStatus.forError(.operationDenied) == 3)
        #expect(ExitStatus.forError(.authenticatorFailed(.invalidParameter)) == 3)
        #expect(ExitStatus.forError(.tunnel(.httpStatus(404))) == 1)
        #expect(ExitStatus.forError(.session(.tunnelClosedEarly)) == 1)
        #expect(ExitStatus.usage == 64)
        let distinct: Set<Int32> = [
            ExitStatus.failure, ExitStatus.timedOut, ExitStatus.ctapError, ExitStatus.usage, ExitStatus.interrupted,
        ]
        #expect(distinct.count == 5 && !distinct.contains(0))
    }

    @Test func ctapStatusesMapToClearErrors() {
        #expect(HybridClientError(status: CTAPStatusCode(rawValue: 0x2E)) == .noCredentials)
        #expect(HybridClientError(status: CTAPStatusCode(rawValue: 0x27)) == .operationDenied)
        #expect(HybridClientError(status: CTAPStatusCode(rawValue: 0x19)) == .credentialExcluded)
        #expect(HybridClientError(status: CTAPStatusCode(rawValue: 0x2F)) == .authenticatorTimedOut)
        #expect(HybridClientError(status: CTAPStatusCode(rawValue: 0x02)) == .authenticatorFailed(.invalidParameter))
    }

    /// The shared option groups (HybridCommandLine) check what they checked here before, in the
    /// same words as hybrid-security-key (SecurityKeyCommandTests).
    @Test func sharedOptionsKeepTheirChecksAndMessages() {
        let base = ["get", "--origin", "https://example.com"]
        for (arguments, message) in [
            (["--timeout", "0"], "--timeout must be between 0 and 3600 seconds"),
            (["--timeout", "3601"], "--timeout must be between 0 and 3600 seconds"),
            (["--linger", "3601"], "--linger must be between 0 and 3600 seconds"),
            (
                ["--tunnel-server", "2=ws://127.0.0.1:8080"],
                "--tunnel-server 2=ws://127.0.0.1:8080: expected ID=URL with ID 0, 1 or 256-65535 and URL ws://host[:port] or wss://host[:port]"
            ),
        ] {
            do {
                _ = try HybridClientCommand.parseAsRoot(base + arguments)
                Issue.record("\(arguments) was accepted")
            } catch {
                #expect(HybridClientCommand.message(for: error) == message)
            }
        }
    }
}
