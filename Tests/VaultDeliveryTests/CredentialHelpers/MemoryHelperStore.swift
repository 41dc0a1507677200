// VaultDelivery tests: a credential-helper store in memory, for the protocols' tests.

import VaultDelivery
import VaultIO

/// Internet passwords in an array, newest last; `find` returns the newest first.
final class MemoryHelperStore: CredentialHelperStore {
    var items: [CredentialHelperItem] = []

    func find(withSecrets: Bool, exact: ItemAttributes?, _ filter: (ItemAttributes) -> Bool) throws
        -> [CredentialHelperItem]
    {
        items.reversed().filter { filter($0.attributes) }.map {
            CredentialHelperItem(attributes: $0.attributes, secret: withSecrets ? $0.secret : nil)
        }
    }

    func store(_ attributes: ItemAttributes, secret: SecretBytes, replacing: ((ItemAttributes) -> Bool)?) throws
        -> Bool
    {
        let key = attributes.canonicalIdentity(for: .internetPassword)
        items.removeAll {
            $0.attributes.canonicalIdentity(for: .internetPassword) == key || replacing?($0.attributes) == true
        }
        items.append(CredentialHelperItem(attributes: attributes, secret: secret))
        return true
    }

    func erase(_ filter: (ItemAttributes) -> Bool, ifSecretEquals secret: SecretBytes?) throws -> Int {
        let before = items.count
        items.removeAll { filter($0.attributes) && (secret == nil || $0.secret == secret) }
        return before - items.count
    }
}
