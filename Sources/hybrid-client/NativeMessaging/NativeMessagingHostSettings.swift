/// The host's settings file (`$XDG_CONFIG_HOME/hybrid-client/native-messaging.conf`): one
/// `hybrid-client` connection flag a line, as on the command line (`--ble sim`,
/// `--tunnel-server 0=ws://127.0.0.1:8080`, `--no-window`), `#` starting a comment. Firefox starts
/// the host with no arguments of the user's, so this is where a user chooses the Bluetooth
/// adapter or a relay. Sans-IO: text in, `hybrid-client` arguments out.
struct NativeMessagingHostSettings: Hashable {
    /// The flags a settings line may give; the origin, the output (`--json`, `--qr-file`) and
    /// the options are the host's to set.
    static let flagsWithValue: Set<String> = [
        "--ble", "--adapter", "--tunnel-server", "--ca-file", "--linger", "--channel", "--l2cap-timeout", "--timeout",
    ]
    static let flagsWithoutValue: Set<String> = ["--window", "--no-window", "--verbose"]
    /// The flags whose value is a file: it must be an absolute path. The host's working directory
    /// is not its own to rely on: Firefox starts it in the directory of the manifest's `path`, the
    /// WebExtensions portal (snap and Flatpak Firefox) in the portal's own (the user's home under
    /// `systemd --user`, `/` under plain D-Bus activation), so a relative path would name
    /// different files, or none, depending on who started the host.
    static let flagsWithPath: Set<String> = ["--ca-file"]
    /// `--qr-url-file FILE`: the host's own flag, for tests only (the URL is the ceremony's
    /// secret): each QR code's URL is appended to FILE (a new private file, mode 0600) as a JSON
    /// line `{"event":"qr","id":…,"url":…}`, for a test's phone to scan.
    static let qrURLFileFlag = "--qr-url-file"

    /// Without a settings file: the QR code in the host's own window.
    static let defaults = NativeMessagingHostSettings(arguments: ["--window"])

    /// The `hybrid-client` flags, in order, defaults first (a later `--no-window` wins).
    let arguments: [String]
    /// Where QR code URLs are appended (``qrURLFileFlag``), if anywhere.
    let qrURLFile: String?

    private init(arguments: [String], qrURLFile: String? = nil) {
        self.arguments = arguments
        self.qrURLFile = qrURLFile
    }

    /// Reads a settings file's text.
    ///
    /// - Throws: ``NativeMessagingSettingsError`` naming the line.
    init(text: String) throws(NativeMessagingSettingsError) {
        var arguments = Self.defaults.arguments
        var qrURLFile: String?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let flag = words.first else { continue }
            if flag == Self.qrURLFileFlag, words.count == 2, words[1].hasPrefix("/") {
                qrURLFile = words[1]
            } else if Self.flagsWithoutValue.contains(flag), words.count == 1 {
                arguments.append(flag)
            } else if Self.flagsWithValue.contains(flag), words.count == 2,
                !Self.flagsWithPath.contains(flag) || words[1].hasPrefix("/")
            {
                arguments += words
            } else {
                throw NativeMessagingSettingsError(line: index + 1, text: String(line))
            }
        }
        self.arguments = arguments
        self.qrURLFile = qrURLFile
    }
}

/// A settings line that is not one allowed flag (with its one value).
struct NativeMessagingSettingsError: Error, Hashable, CustomStringConvertible {
    let line: Int
    let text: String

    var description: String {
        "line \(line) is not one of "
            + (NativeMessagingHostSettings.flagsWithValue.union([NativeMessagingHostSettings.qrURLFileFlag]).map {
                "\($0) VALUE"
            }
            + NativeMessagingHostSettings.flagsWithoutValue).sorted().joined(separator: ", ")
            + " (files as absolute paths): \(text)"
    }
}
