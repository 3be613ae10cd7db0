/// A small built-in subset of the Public Suffix List (https://publicsuffix.org), used to stop an RP ID
/// from being a public suffix such as `co.uk` or `github.io`.
///
/// Limitations, by design (no network access, no large data file): only the multi-label suffixes
/// below are known; wildcard (`*.ck`) and exception rules are absent; every single label other than
/// `localhost` is treated as a public suffix (the list's implicit `*` rule), which covers all TLDs.
/// A multi-label suffix missing here (e.g. a less common second-level domain) is therefore treated as
/// registrable, so such RP IDs are accepted where a browser would refuse them.
enum PublicSuffixList {
    static let multiLabelSuffixes: Set<String> = [
        // ICANN second-level domains in wide use.
        "co.uk", "org.uk", "me.uk", "ac.uk", "gov.uk", "ltd.uk", "plc.uk", "net.uk", "sch.uk", "nhs.uk",
        "police.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au",
        "co.nz", "net.nz", "org.nz", "govt.nz", "ac.nz", "school.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ed.jp", "ad.jp", "gr.jp", "lg.jp",
        "co.kr", "or.kr", "ne.kr", "go.kr", "ac.kr",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn",
        "com.hk", "org.hk", "net.hk", "edu.hk", "gov.hk",
        "com.tw", "org.tw", "net.tw", "edu.tw", "gov.tw",
        "com.sg", "org.sg", "net.sg", "edu.sg", "gov.sg",
        "co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "ac.in", "gov.in",
        "com.br", "net.br", "org.br", "gov.br", "edu.br",
        "com.mx", "org.mx", "gob.mx", "edu.mx",
        "com.ar", "org.ar", "gob.ar",
        "co.za", "org.za", "gov.za", "ac.za",
        "co.il", "org.il", "ac.il", "gov.il",
        "com.tr", "org.tr", "gov.tr", "edu.tr",
        "com.ua", "org.ua", "gov.ua",
        "com.pl", "net.pl", "org.pl",
        "co.id", "or.id", "ac.id", "go.id",
        "com.my", "org.my", "gov.my",
        "com.ph", "org.ph", "gov.ph",
        "com.vn", "org.vn", "gov.vn",
        "co.th", "or.th", "ac.th", "go.th",
        "com.es", "org.es", "gob.es",
        // Private registries that host many unrelated sites.
        "github.io", "gitlab.io", "herokuapp.com", "appspot.com", "blogspot.com", "web.app",
        "firebaseapp.com", "netlify.app", "vercel.app", "pages.dev", "workers.dev", "fly.dev",
        "onrender.com", "azurewebsites.net", "cloudfront.net", "glitch.me", "ngrok.io", "ngrok.app",
        "ngrok-free.app", "codeberg.page", "readthedocs.io", "s3.amazonaws.com",
    ]

    /// The public suffix of a domain: the longest known suffix, else its last label.
    static func publicSuffix(of domain: String) -> String {
        let labels = domain.split(separator: ".")
        for start in labels.indices {
            let candidate = labels[start...].joined(separator: ".")
            if multiLabelSuffixes.contains(candidate) { return candidate }
        }
        return labels.last.map(String.init) ?? domain
    }

    /// True if `domain` is itself a public suffix (`localhost` is not).
    static func isPublicSuffix(_ domain: String) -> Bool {
        domain != "localhost" && publicSuffix(of: domain) == domain
    }
}
