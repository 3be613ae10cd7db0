/// A per-user base directory of the XDG Base Directory Specification (0.8), resolved from an
/// environment. Pure: the caller passes the environment and the home directory to fall back on.
package enum XDGBaseDirectory: Sendable {
    /// `$XDG_DATA_HOME`, by default `~/.local/share`: files a user keeps (the passkey store).
    case data
    /// `$XDG_STATE_HOME`, by default `~/.local/state`: state that survives restarts but is not
    /// worth backing up (the security key's known credential IDs).
    case state
    /// `$XDG_CONFIG_HOME`, by default `~/.config`: settings a user writes (the Firefox host's).
    case config

    /// The variable's value when it is an absolute path, else the default under `$HOME` (or
    /// `homeDirectory()` when `HOME` is unset or empty). The specification: "If an implementation
    /// encounters a relative path in any of these variables it should consider the path invalid
    /// and ignore it."
    package func path(environment: [String: String], homeDirectory: () -> String) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeDirectory()
        return home + defaultUnderHome
    }

    /// `$XDG_RUNTIME_DIR` when it is an absolute path; the specification gives it no default, and
    /// callers check that it is theirs and private before they put anything there.
    package static func runtimeDirectory(environment: [String: String]) -> String? {
        environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    private var variable: String {
        switch self {
        case .data: "XDG_DATA_HOME"
        case .state: "XDG_STATE_HOME"
        case .config: "XDG_CONFIG_HOME"
        }
    }

    private var defaultUnderHome: String {
        switch self {
        case .data: "/.local/share"
        case .state: "/.local/state"
        case .config: "/.config"
        }
    }
}
