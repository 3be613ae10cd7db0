import HybridAuthenticator
import HybridCore

/// How the conformance phone behaves: a real phone variant, to test the client's tolerance
/// (protocol.md §7.2, §7.4, §7.5, §10.2, §10.3, §10.5).
package enum PhoneProfile: String, Sendable, CaseIterable {
    /// The newest Chromium Android phone: `{1: getInfo, 3: ["ctap"]}`, a padded update right
    /// after it, then it waits for the client's shutdown.
    case strict
    /// Chromium Android that hangs up right after its reply, as phones that handle one command do.
    case android
    /// iPhone: `{1: getInfo, 3: ["ctap", "dc"]}` and no update message.
    case ios
    /// A legacy phone of revision 0: padded post-handshake map, no type bytes, no shutdown.
    case revision0
    /// A pre-2022 Chromium phone with the old crypter (LE32 nonce, AD `02`).
    case oldCrypter = "old-crypter"
    /// Chromium's `LateLinkingDevice`: the update comes after the client's shutdown.
    case lateUpdate = "late-update"

    /// The protocol revision the phone speaks.
    package var revision: HybridProtocolRevision { self == .revision0 ? .zero : .one }

    /// Whether the phone closes the tunnel right after its reply.
    package var hangsUpAfterReply: Bool { self == .android }

    /// Whether real phones of today behave like this, so that a client must cope; `false` for the
    /// legacy variants (revision 0, old crypter), which a client may support (§10.2, §10.3).
    package var isCurrent: Bool { self != .revision0 && self != .oldCrypter }

    /// Applies the profile to the conformance phone's tap.
    func apply(to tap: inout ConformancePhoneTap) {
        let profile = self
        tap.hangsUpAfterReply = hangsUpAfterReply
        tap.adjustSession = { configuration in
            switch profile {
            case .strict, .android:
                break
            case .ios:
                configuration.features = [.ctap, .digitalCredentials]
                configuration.sendsUpdateMessage = false
            case .revision0:
                configuration.revision = .zero
            case .oldCrypter:
                configuration.construction = .old
            case .lateUpdate:
                configuration.sendsUpdateLate = true
            }
        }
    }
}
