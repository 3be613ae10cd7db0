/// Why a transport message could not be encrypted or decrypted (protocol.md §7.1).
///
/// Cases are listed in the order `TransportCrypter` checks them. Every one is fatal for the session.
public enum TransportError: Error, Equatable, Sendable {
    /// The sequence number is above 2^24 − 1; the direction is exhausted and every further
    /// operation fails.
    case sequenceLimitReached
    /// AES-256-GCM authentication failed: wrong key, wrong sequence number or tampered bytes.
    case authenticationFailed
    /// The decrypted plaintext is empty, or its padding count is larger than the data.
    case invalidPadding
}
