// vault: what the git and docker credential helpers need from a keychain.

import VaultIO

/// An internet-password item as the credential helpers see it: its attributes and, when asked
/// for, its secret.
public struct CredentialHelperItem {
    /// The item's attributes.
    public var attributes: ItemAttributes
    /// Its secret, when it was asked for.
    public var secret: SecretBytes?

    /// An item with `attributes` and `secret`.
    public init(attributes: ItemAttributes, secret: SecretBytes?) {
        self.attributes = attributes
        self.secret = secret
    }
}

/// What the git and docker helpers need from a keychain: find, store and erase internet passwords.
///
/// The protocol code (``GitCredentialProtocol``, ``DockerCredentialProtocol``) talks only to this,
/// never to a file, so that a vault file opened with credentials, the agent, or an app's own
/// keychain can each answer.
public protocol CredentialHelperStore {
    /// The internet-password items whose attributes pass `filter`, most recently modified first,
    /// with their secrets when `withSecrets` is set.
    ///
    /// When `exact` is given and the item with that primary key exists and passes `filter`, it is
    /// the only result: found by its lookup tag with one decryption instead of one per item.
    func find(withSecrets: Bool, exact: ItemAttributes?, _ filter: (ItemAttributes) -> Bool) throws
        -> [CredentialHelperItem]

    /// Stores `secret` under the primary key of `attributes`, and removes every other item that
    /// `replacing` accepts (none when it is `nil`: then no other item is decrypted), in one atomic
    /// write. An item with the same key and the same secret is left as it is (nothing is written).
    ///
    /// - Returns: Whether the vault was changed.
    @discardableResult
    func store(_ attributes: ItemAttributes, secret: SecretBytes, replacing: ((ItemAttributes) -> Bool)?) throws -> Bool

    /// Removes every internet-password item whose attributes pass `filter` and, when `secret`
    /// is given, whose secret equals it; in one atomic write.
    ///
    /// - Returns: How many items were removed.
    func erase(_ filter: (ItemAttributes) -> Bool, ifSecretEquals secret: SecretBytes?) throws -> Int
}
