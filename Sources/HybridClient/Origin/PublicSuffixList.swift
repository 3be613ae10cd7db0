import CPSL

/// The Public Suffix List (https://publicsuffix.org) as browsers apply it, through libpsl.
///
/// The data is the newest of libpsl's built-in list and the system's copy (Debian's `publicsuffix`
/// package, `/usr/share/publicsuffix/public_suffix_list.dafsa`), chosen by `psl_latest`. ICANN and
/// private rules, wildcards and exceptions all apply, with the implicit `*` rule for unlisted TLDs.
enum PublicSuffixList {
    /// The loaded list; libpsl contexts are read-only after loading and safe to share.
    private final class Context: @unchecked Sendable {
        let pointer: OpaquePointer?
        init() { pointer = psl_latest(nil) }
    }

    private static let context = Context()

    /// The registrable domain ("eTLD+1") of `domain`: its public suffix plus one more label, e.g.
    /// `example.co.uk` for `login.example.co.uk`. `nil` when `domain` is itself a public suffix (`com`,
    /// `co.uk`, `github.io`, an unlisted single label), is empty or starts with a dot, or when the
    /// list could not be loaded (every name is then treated as a public suffix: nothing is claimable).
    ///
    /// - Parameter domain: A domain name, in any letter case; labels may be punycode or UTF-8.
    static func registrableDomain(of domain: String) -> String? {
        let lowered = domain.lowercased()
        guard !lowered.isEmpty, !lowered.hasPrefix("."), let pointer = context.pointer else { return nil }
        return lowered.withCString { name in
            psl_registrable_domain(pointer, name).map { String(cString: $0) }
        }
    }

    /// True if no site may claim `domain` as its own: it has no registrable domain.
    static func isPublicSuffix(_ domain: String) -> Bool { registrableDomain(of: domain) == nil }
}
