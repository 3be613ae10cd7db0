import Foundation

/// What the authenticator asks the user to confirm.
public enum UserOperation: Hashable, Sendable {
    /// Create a passkey (makeCredential).
    case makeCredential
    /// Sign in with a passkey (getAssertion).
    case getAssertion
    /// makeCredential found a passkey from the exclude list: the user acknowledges before the
    /// authenticator answers "credential excluded" (CTAP 2.1 §6.1.2 step 12).
    case excludedCredential
    /// authenticatorSelection: "is this the authenticator you want to use?"
    case selection
}

/// One account offered in ``UserInteraction/chooseAccount(rpID:accounts:)``.
public struct AccountChoice: Hashable, Sendable {
    /// The account's user name, if the site gave one.
    public let userName: String?
    /// The account's display name, if the site gave one.
    public let userDisplayName: String?
    /// When the passkey was made.
    public let createdAt: Date

    /// An account choice from the passkey's names and creation time.
    public init(userName: String?, userDisplayName: String?, createdAt: Date) {
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.createdAt = createdAt
    }
}

/// One credential a verifier asks for, as the user is shown it in
/// ``UserInteraction/confirmPresentation(origin:credentials:)``.
public struct RequestedCredential: Hashable, Sendable {
    /// The credential's human name, for example `PID`.
    public let name: String
    /// The requested claims' human names, for example `age over 18`; empty when only the
    /// credential's mandatory contents are asked for.
    public let claims: [String]
    /// Whether the wallet holds a credential that answers this request. When no credential
    /// matches, the user is still shown what was asked (and that nothing matches) before the
    /// refusal, so the time of the answer does not tell the verifier whether one matched.
    public let available: Bool

    /// A requested credential and its claims; `available` unless nothing in the wallet matches.
    public init(name: String, claims: [String], available: Bool = true) {
        (self.name, self.claims, self.available) = (name, claims, available)
    }
}

/// How the authenticator tests user presence and verifies the user. Every method may take as
/// long as the user needs.
public protocol UserInteraction: Sendable {
    /// Asks the user to approve `operation` for `rpID` (nil for selection) and the account
    /// `userName` (nil when unknown). Returns whether the user approved.
    func confirm(operation: UserOperation, rpID: String?, userName: String?) async -> Bool

    /// Asks the user to pick one of `accounts` (newest first) to sign in to `rpID`. Picking
    /// counts as user presence. Returns the index, or nil if the user declined.
    func chooseAccount(rpID: String, accounts: [AccountChoice]) async -> Int?

    /// Verifies the user (for this program: the store's passphrase). Returns whether it succeeded.
    func verifyUser() async -> Bool

    /// Whether ``verifyUser()`` can succeed at all: a user verification method is set up (for this
    /// program: the store has a passphrase). The authenticator's getInfo reports it as option `uv`,
    /// and requests asking for `uv` are refused when it is false.
    var canVerifyUser: Bool { get }

    /// Asks the user whether to share `credentials` (names and claims) with the verifier at
    /// `origin`, the origin the browser asserted. Returns whether the user agreed. When the
    /// credentials are not ``RequestedCredential/available``, nothing can be shared: the user is
    /// shown what was asked and that nothing matches, and the request is refused whatever the
    /// answer, once it is given.
    func confirmPresentation(origin: String, credentials: [RequestedCredential]) async -> Bool
}

extension UserInteraction {
    /// Declines: an interaction that does not implement consent for digital credentials shares nothing.
    public func confirmPresentation(origin: String, credentials: [RequestedCredential]) async -> Bool { false }
}

/// Approves everything without asking (`--yes`): for unattended use and tests.
///
/// It picks the newest account when there are several. It reports user verification only if
/// told to, which a caller should do only when the passphrase was already proven (the store was
/// unlocked with it).
public struct AutoApproveUserInteraction: UserInteraction {
    /// Whether ``verifyUser()`` succeeds.
    public let userVerification: Bool

    /// An interaction that approves everything; user verification succeeds only if `userVerification`.
    public init(userVerification: Bool = false) { self.userVerification = userVerification }

    /// Always approves.
    public func confirm(operation: UserOperation, rpID: String?, userName: String?) async -> Bool { true }

    /// Always the first account (newest), or `nil` if there is none.
    public func chooseAccount(rpID: String, accounts: [AccountChoice]) async -> Int? { accounts.isEmpty ? nil : 0 }

    /// Succeeds only if ``userVerification``.
    public func verifyUser() async -> Bool { userVerification }

    /// Whether user verification is available: ``userVerification``.
    public var canVerifyUser: Bool { userVerification }

    /// Always shares.
    public func confirmPresentation(origin: String, credentials: [RequestedCredential]) async -> Bool { true }
}
