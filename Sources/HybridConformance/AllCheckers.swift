extension VectorRunner {
    /// Every vector kind this package checks, one line per kind.
    package static let allCheckers: [any VectorKindChecker] = [
        CBORChecker(),
        RPIDHashChecker(),
        DigitsChecker(),
        HKDFChecker(),
        SeedKeyChecker(),
        EIDChecker(),
        EIDPlaintextChecker(),
        PaddingChecker(),
        CrypterChecker(),
        LinkingSignatureChecker(),
        HandshakeChecker(),
        DomainChecker(),
        TunnelURLChecker(),
        TunnelPathChecker(),
        QRChecker(),
        AdvertSuffixChecker(),
        ClientPayloadChecker(),
        RequestTypeChecker(),
        FrameChecker(),
        PostHandshakeChecker(),
        LinkingChecker(),
        SessionChecker(),
        DigitalCredentialChecker(kind: "dcRequest"),
        DigitalCredentialChecker(kind: "dcResponse"),
    ]
}
