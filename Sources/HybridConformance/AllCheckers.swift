extension VectorRunner {
    /// Every vector kind this package checks, one line per kind.
    public static let allCheckers: [any VectorKindChecker] = [
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
        QRChecker(),
        AdvertSuffixChecker(),
        ClientPayloadChecker(),
        RequestTypeChecker(),
        FrameChecker(),
        PostHandshakeChecker(),
        LinkingChecker(),
    ]
}
