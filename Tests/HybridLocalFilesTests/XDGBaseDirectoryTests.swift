import Testing

@testable import HybridLocalFiles

/// Expected paths from the XDG Base Directory Specification 0.8: `$XDG_DATA_HOME` defaults to
/// `$HOME/.local/share`, `$XDG_STATE_HOME` to `$HOME/.local/state`, relative values are invalid and
/// ignored, and `$XDG_RUNTIME_DIR` has no default.
@Suite struct XDGBaseDirectoryTests {
    @Test func anAbsoluteVariableWinsAndAnythingElseFallsBackUnderHome() {
        let fallback = { "/from-passwd" }
        #expect(
            XDGBaseDirectory.data.path(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"], homeDirectory: fallback)
                == "/d")
        #expect(
            XDGBaseDirectory.state.path(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"], homeDirectory: fallback)
                == "/s")
        for value in [nil, "", "relative/dir"] {
            var environment = ["HOME": "/h"]
            environment["XDG_DATA_HOME"] = value
            environment["XDG_STATE_HOME"] = value
            #expect(XDGBaseDirectory.data.path(environment: environment, homeDirectory: fallback) == "/h/.local/share")
            #expect(XDGBaseDirectory.state.path(environment: environment, homeDirectory: fallback) == "/h/.local/state")
        }
        // No usable HOME: the injected home directory (getpwuid's, for the callers).
        for home in [nil, ""] {
            var environment: [String: String] = [:]
            environment["HOME"] = home
            #expect(
                XDGBaseDirectory.data.path(environment: environment, homeDirectory: fallback)
                    == "/from-passwd/.local/share")
        }
    }

    @Test func theRuntimeDirectoryHasNoDefault() {
        #expect(
            XDGBaseDirectory.runtimeDirectory(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000")
        #expect(XDGBaseDirectory.runtimeDirectory(environment: ["XDG_RUNTIME_DIR": "run/user/1000"]) == nil)
        #expect(XDGBaseDirectory.runtimeDirectory(environment: ["XDG_RUNTIME_DIR": ""]) == nil)
        #expect(XDGBaseDirectory.runtimeDirectory(environment: [:]) == nil)
    }
}
