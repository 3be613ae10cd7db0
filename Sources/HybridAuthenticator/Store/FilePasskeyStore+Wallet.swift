import HybridWallet

/// Where the wallet reads its device key and credentials.
package protocol IdentityCredentialSource: Sendable {
    /// The wallet's contents, as of the last open or change.
    func walletContents() async throws(PasskeyStoreError) -> WalletContents
}

extension FilePasskeyStore: IdentityCredentialSource {
    /// The wallet's contents, as of the last open or change.
    package func walletContents() -> WalletContents { state.wallet }

    /// Edits the wallet under the store's lock (re-reading the file first, as every change does)
    /// and saves it when `apply` says so; passkeys are left as they are.
    package func changeWallet<Value>(
        _ apply: (inout WalletContents) throws(PasskeyStoreError) -> (result: Value, write: Bool)
    ) throws(PasskeyStoreError) -> Value {
        try changeFile(sealingWallet: true) { (_, wallet) throws(PasskeyStoreError) in try apply(&wallet) }
    }
}
