import Foundation
import HybridAuthenticator
import HybridCTAP
import HybridCore
import HybridPresentation

/// Shows runner events: one JSON object per line on standard output (`--json`), or short
/// sentences for people (progress on standard output, errors on standard error).
struct EventPrinter: Sendable {
    let json: Bool

    func print(_ event: AuthenticatorEvent) {
        if json {
            Console.writeJSONOutput(Self.json(event).text + "\n")
        } else if case .error(let message) = event {
            Console.writeError("error: \(TerminalText.printable(message))\n")
        } else {
            Console.writeOutput(Self.human(event) + "\n")
        }
    }

    /// The `--json` object of `event`; its first member is always `"event"`.
    static func json(_ event: AuthenticatorEvent) -> JSONLine {
        var members: [(String, JSONLine)]
        switch event {
        case .waitingForTunnel(let origin, let domainID):
            members = [
                ("event", .string("waitingForTunnel")), ("origin", .string(origin.description)),
                ("domainID", .int(Int(domainID.rawValue))),
            ]
        case .tunnelOpened(let routingID):
            members = [("event", .string("tunnelOpened")), ("routingID", .string(routingID.hex))]
        case .advertising(let uuid, let serviceData):
            members = [
                ("event", .string("advertising")), ("uuid", .string(hex16(uuid))),
                ("serviceData", .string(Hex.encode(serviceData))),
            ]
        case .advertisingStopped:
            members = [("event", .string("advertisingStopped"))]
        case .tunnelUnavailable(let reason):
            members = [("event", .string("tunnelUnavailable")), ("reason", .string(reason))]
        case .listeningL2CAP(let psm):
            members = [("event", .string("listeningL2CAP")), ("psm", .int(Int(psm)))]
        case .connected(let channel):
            members = [("event", .string("connected")), ("channel", .string(channel.rawValue))]
        case .handshakeDone:
            members = [("event", .string("handshakeDone"))]
        case .request(let command, let rpID):
            members = [
                ("event", .string("request")), ("command", .optional(command.map(commandName))),
                ("rpID", .optional(rpID)),
            ]
        case .approved(let status), .denied(let status):
            let name = if case .approved = event { "approved" } else { "denied" }
            members = [("event", .string(name))] + statusMembers(status)
        case .done(let summary):
            let answers = summary.answers.map { answer in
                JSONLine.object(
                    [("command", .optional(answer.command.map(commandName))), ("rpID", .optional(answer.rpID))]
                        + statusMembers(answer.status))
            }
            members = [("event", .string("done")), ("served", .bool(summary.served)), ("requests", .array(answers))]
            if let answer = summary.digitalCredential {
                members.append(("digitalCredential", .string(answer.rawValue)))
            }
        case .digitalCredentialRequest(let origin, let protocols):
            members = [
                ("event", .string("digitalCredentialRequest")), ("origin", .string(origin)),
                ("protocols", .array(protocols.map { .string($0) })),
            ]
        case .digitalCredentialAnswered(let answer):
            members = [("event", .string("digitalCredentialAnswered")), ("answer", .string(answer.rawValue))]
        case .error(let message):
            members = [("event", .string("error")), ("message", .string(message))]
        }
        return .object(members)
    }

    /// One sentence for people.
    static func human(_ event: AuthenticatorEvent) -> String {
        switch event {
        case .waitingForTunnel(let origin, let domainID):
            return "Opening a tunnel at \(origin) (tunnel domain \(domainID.rawValue))..."
        case .tunnelOpened(let routingID):
            return "Tunnel open, routing ID \(routingID.hex)."
        case .advertising(let uuid, _):
            return "Advertising over Bluetooth (service 0x\(hex16(uuid).uppercased())); waiting for the client..."
        case .advertisingStopped:
            return "Advertising stopped."
        case .tunnelUnavailable(let reason):
            return "No tunnel (\(TerminalText.printable(reason))); waiting for the client over Bluetooth L2CAP only."
        case .listeningL2CAP(let psm):
            return "Listening for the client on Bluetooth L2CAP PSM \(psm)."
        case .connected(let channel):
            return "Client connected over " + (channel == .l2cap ? "Bluetooth L2CAP." : "the tunnel.")
        case .handshakeDone:
            return "Handshake done."
        case .request(let command, let rpID):
            let what = command.map(commandName) ?? "empty request"
            return "Request: \(what)" + (rpID.map { " for \(TerminalText.printable($0))" } ?? "")
        case .approved:
            return "Approved."
        case .denied(let status):
            return "Denied: \(status.message) (\(status.name ?? "status") 0x\(Hex.encode([status.rawValue])))"
        case .digitalCredentialRequest(let origin, let protocols):
            return "Digital credential request from \(TerminalText.printable(origin)) ("
                + protocols.map { TerminalText.printable($0) }.joined(separator: ", ") + ")"
        case .digitalCredentialAnswered(let answer):
            return answer == .presented ? "Credential presented." : "Refused (\(answer.rawValue))."
        case .done(let summary):
            return summary.served ? "Done." : "Done, but no request succeeded."
        case .error(let message):
            return "error: \(TerminalText.printable(message))"
        }
    }

    private static func statusMembers(_ status: CTAPStatusCode) -> [(String, JSONLine)] {
        [("status", .int(Int(status.rawValue))), ("statusName", .optional(status.name))]
    }

    private static func commandName(_ command: CTAPCommand) -> String {
        command.name ?? "0x" + Hex.encode([command.rawValue])
    }

    private static func hex16(_ value: UInt16) -> String {
        Hex.encode([UInt8(value >> 8), UInt8(value & 0xFF)])
    }
}
