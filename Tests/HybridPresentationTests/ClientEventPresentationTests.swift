import Foundation
import HybridClient
import HybridCore
import Testing

@testable import HybridPresentation

/// The one presentation of a client's events against the table in docs/client.md ("Events"): the
/// expected JSON lines and sentences are the document's, not this code's own output.
@Suite struct ClientEventPresentationTests {
    /// One row of the table: the example JSON line and its sentence.
    struct Row: Sendable, Equatable {
        let line: String
        let sentence: String
    }

    /// The rows of docs/client.md's event table.
    static func documentedRows() throws -> [Row] {
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/client.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        let section = try #require(text.range(of: "## Events\n"), "docs/client.md has no Events section")
        var rows: [Row] = []
        for line in text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(cells.count == 3, "a row of three cells: \(line)")
            rows.append(Row(line: String(cells[1].dropFirst().dropLast()), sentence: cells[2]))
        }
        return rows
    }

    /// One event of each kind, with the values of the table's examples.
    static let samples: [HybridClientEvent] = [
        .qr(url: "FIDO:/0123"),
        .waitingForDevice(timeout: .seconds(120)),
        .advertForAnotherQRCode,
        .connecting(domain: .google, host: "cable.ua5v.com"),
        .connectingL2CAP(psm: 128),
        .l2capUnavailable(.phoneOfferedNone),
        .channel(.tunnel),
        .channel(.l2cap),
        .handshake,
        .waitingForApproval,
        .done,
        .lingering(limit: .seconds(180)),
    ]

    @Test func everyEventReadsAsTheTableSays() throws {
        let rows = try Self.documentedRows()
        for event in Self.samples {
            let presentation = ClientEventPresentation(event)
            let row = try #require(
                rows.first { $0.line == presentation.line.text }, "no row for \(presentation.line.text)")
            #expect(row.sentence == presentation.sentence, "\(event)")
            #expect(row.line.hasPrefix(#"{"event":"\#(presentation.name)""#))
        }
        // And the table has no row the code does not write (the session end is the last).
        #expect(rows.count == Self.samples.count + 1)
        let closed = ClientEventPresentation.line(for: HybridSessionEnd(reason: .phoneClosed)).text
        #expect(rows.last == Row(line: closed, sentence: "(JSON only)"))
    }

    /// The former `ProgressReporter.jsonLine` cases: `"event"` first, members sorted after it.
    @Test func linesStartWithTheEventNameAndSortTheRest() throws {
        #expect(
            ClientEventPresentation(.connecting(domain: .apple, host: "127.0.0.1:80")).line.text
                == #"{"event":"connecting","domain":1,"host":"127.0.0.1:80"}"#)
        #expect(
            ClientEventPresentation.line(for: HybridSessionEnd(reason: .lingerExpired, lateUpdates: 2)).text
                == #"{"event":"closed","lateUpdates":2,"reason":"lingerExpired"}"#)
        #expect(
            ClientEventPresentation.line(for: HybridSessionEnd(reason: .failed(.session(.tunnelClosedEarly)))).text
                .hasPrefix(#"{"event":"closed","lateUpdates":0,"message":"#))
        let line = ClientEventPresentation(.connecting(domain: .apple, host: "127.0.0.1:80")).line.text
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["host"] as? String == "127.0.0.1:80")
    }

    /// The one writer keeps every line on one line and valid JSON, whatever a string holds.
    @Test func theWriterEscapesControlCharacters() throws {
        let line = JSONLine.event("error", [("message", .string("a\nb\"c\\\u{1B}[2J\u{2028}")), ("kind", .null)]).text
        #expect(line == #"{"event":"error","kind":null,"message":"a\nb\"c\\\u001b[2J\u2028"}"#)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["message"] as? String == "a\nb\"c\\\u{1B}[2J\u{2028}")
    }
}
