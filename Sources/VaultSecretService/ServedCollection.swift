// vaulttool secret-service: one vault served as a collection, opened as R-SS-3 says, its items
// read once per generation.

import Glibc
import VaultIO

/// What the command line gives for one collection.
package struct CollectionSource: Sendable {
    /// The vault file.
    package var path: String
    /// The collection's name (R-SS-6).
    package var name: String
    /// Whether it is the per-user standard vault (created on the first `CreateItem`).
    package var isStandard: Bool
    /// The credentials given at start (or the device secret), `nil` for the agent's keys only.
    package var credentials: Credentials?
    /// The configuration writes use.
    package var configuration: VaultConfiguration

    package init(
        path: String,
        name: String,
        isStandard: Bool,
        credentials: Credentials?,
        configuration: VaultConfiguration
    ) {
        (self.path, self.name, self.isStandard) = (path, name, isStandard)
        (self.credentials, self.configuration) = (credentials, configuration)
    }
}

/// An item as the collection lists it.
package struct ServedItem {
    package let id: ItemID
    package let itemClass: ItemClass
    package let attributes: ItemAttributes
    package let map: [String: String]
    /// The map its fields give, which searches also match (R-SS-24).
    package let fieldsMap: [String: String]

    /// Whether a search for `wanted` finds the item (R-SS-24).
    package func matches(_ wanted: [String: String]) -> Bool {
        SecretAttributes.matches(map, wanted) || SecretAttributes.matches(fieldsMap, wanted)
    }
}

/// One collection: its vault and a cache of its items' attributes.
package final class ServedCollection {
    package let source: CollectionSource
    package var objectPath: String { "/org/freedesktop/secrets/collection/" + source.name }

    /// The vault opened with the start credentials (kept).
    private var held: Vault?
    /// The vault an askpass answer opened, when no agent took its keys (dropped by `Lock`).
    private var unlocked: Vault?
    /// Why the start credentials did not open the vault, for the log.
    package private(set) var openFailure: String?

    package init(_ source: CollectionSource) {
        self.source = source
        if let credentials = source.credentials, fileExists(source.path) {
            do {
                held = try Vault(path: source.path, credentials: credentials, configuration: source.configuration)
            } catch {
                openFailure = "\(error)"
            }
        }
    }

    /// ``vault()``'s answer for the message being processed: asked of the agent once per message
    /// (R-SS-14), not once per path or property the message names.
    private var answerForThisMessage: Vault??

    /// Forgets ``vault()``'s answer: the next message asks the agent again.
    package func nextMessage() { answerForThisMessage = nil }

    /// Forgets ``vault()``'s answer now (the agent was just given the keys).
    func forgetAnswer() { answerForThisMessage = nil }

    /// Keeps `vault`, opened by an askpass answer, until `Lock`.
    func keepUnlocked(_ vault: Vault) {
        unlocked = vault
        answerForThisMessage = nil
    }

    /// The vault, open now: the agent's keys first (asked for every message, R-SS-14), else the held one.
    package func vault() -> Vault? {
        if let answer = answerForThisMessage { return answer }
        let answer = agentVault() ?? unlocked ?? held
        answerForThisMessage = answer
        return answer
    }

    private func agentVault() -> Vault? {
        if let agent = VaultAgent.fromEnvironment(), let resolved = try? VaultAgent.resolvedPath(source.path),
            let header = try? VaultFileReader(path: resolved).header(),
            let keys = try? agent.keys(forVaultAt: resolved, vaultID: header.vaultID),
            let vault = try? Vault(path: source.path, keys: keys, configuration: source.configuration)
        {
            return vault
        }
        return nil
    }

    /// Whether the collection is locked (R-SS-14). The standard vault not yet created, with its
    /// device secret at hand, is unlocked: it is created on the first write.
    package var isLocked: Bool { vault() == nil && !(willCreate) }

    private var willCreate: Bool { source.isStandard && source.credentials != nil && !fileExists(source.path) }

    /// Drops the keys the provider holds, when they came from an unlock; returns whether it is now locked.
    package func lock() -> Bool {
        unlocked = nil
        answerForThisMessage = nil
        if source.credentials == nil {
            if let agent = VaultAgent.fromEnvironment(), let resolved = try? VaultAgent.resolvedPath(source.path) {
                _ = try? agent.lock(path: resolved)
            }
        }
        return isLocked
    }

    /// The items the keys open, in ascending ID order; empty when locked.
    package func items() throws(BusError) -> [ServedItem] { try currentListing()?.items ?? [] }

    /// The item with `id`, when it exists and the keys open it.
    package func item(_ id: ItemID) throws(BusError) -> ServedItem? {
        guard let listing = try currentListing(), let i = listing.byID[id] else { return nil }
        return listing.items[i]
    }

    /// The listing of the file as it is now; `nil` when the collection is locked, or just locked
    /// (R-SS-15: a locked collection lists nothing).
    private func currentListing() throws(BusError) -> Listing? {
        guard let vault = vault() else { return nil }
        do {
            return try reading(vault) { snapshot in try self.listing(snapshot) }
        } catch {
            if error == .isLocked { return nil }
            throw error
        }
    }

    /// The secret of item `id`.
    package func secret(_ id: ItemID) throws(BusError) -> SecretBytes? {
        try secrets([id])[id]?.secret
    }

    /// The items of `ids` that exist, with their secrets, from one snapshot (R-SS-10: one read per
    /// call whatever the number of paths).
    package func secrets(_ ids: Set<ItemID>) throws(BusError) -> [ItemID: (item: ServedItem, secret: SecretBytes)] {
        guard let vault = vault() else { throw .isLocked }
        return try reading(vault) { snapshot in
            let listing = try self.listing(snapshot)
            var out: [ItemID: (item: ServedItem, secret: SecretBytes)] = [:]
            for id in ids {
                guard let i = listing.byID[id], let position = listing.positions[id],
                    try snapshot.index.entry(at: position).itemID == id
                else { continue }
                out[id] = (listing.items[i], try snapshot.secret(at: position))
            }
            return out
        }
    }

    /// What one file's items give, and which file it was (R-SS-14: vault ID, generation and index
    /// nonce, so a copy of the same generation put in place is read again).
    private struct Listing {
        let file: (vaultID: [UInt8], generation: UInt64, indexNonce: [UInt8])
        let items: [ServedItem]
        let byID: [ItemID: Int]
        let positions: [ItemID: Int]

        func describes(_ header: VaultHeader) -> Bool {
            file.generation == header.generation && file.vaultID == header.vaultID
                && file.indexNonce == header.indexNonce
        }
    }

    private var cache: Listing?

    /// The listing of `snapshot`: the cached one when it describes the same file.
    private func listing(_ snapshot: VaultSnapshot) throws -> Listing {
        if let cache, cache.describes(snapshot.header) { return cache }
        let decoded = try snapshot.items(includeSecrets: false, skipUnavailable: true)
        let items = decoded.sorted { $0.entry.itemID < $1.entry.itemID }.map {
            ServedItem(
                id: $0.entry.itemID,
                itemClass: $0.entry.itemClass,
                attributes: $0.attributes,
                map: SecretAttributes.map(of: $0.attributes, itemClass: $0.entry.itemClass),
                fieldsMap: SecretAttributes.fieldsMap(of: $0.attributes, itemClass: $0.entry.itemClass)
            )
        }
        var byID: [ItemID: Int] = [:]
        for (i, item) in items.enumerated() { byID[item.id] = i }
        var positions: [ItemID: Int] = [:]
        for position in 0..<(try snapshot.index.count) {
            positions[try snapshot.index.entry(at: position).itemID] = position
        }
        let header = snapshot.header
        let listing = Listing(
            file: (header.vaultID, header.generation, header.indexNonce),
            items: items,
            byID: byID,
            positions: positions
        )
        cache = listing
        return listing
    }

    /// `body` on a snapshot of `vault`; when another writer rekeyed or replaced the file, once more
    /// with the vault opened again (R-SS-3), else `IsLocked`.
    private func reading<T>(_ vault: Vault, _ body: (VaultSnapshot) throws -> T) throws(BusError) -> T {
        do {
            return try vault.read(body)
        } catch {
            guard Self.keysAreStale(error) else { throw .failed("cannot read \(source.path): \(error)") }
        }
        guard let fresh = reopen() else { throw .isLocked }
        do {
            return try fresh.read(body)
        } catch {
            if Self.keysAreStale(error) { throw .isLocked }
            throw .failed("cannot read \(source.path): \(error)")
        }
    }

    /// Whether `error` says the keys held no longer open the file (another writer rekeyed it).
    private static func keysAreStale(_ error: any Error) -> Bool {
        (error as? VaultIOError)?.code == .credentialsRequired
    }

    /// Drops keys that no longer open the vault (the agent's too: they open nothing now) and opens
    /// it again with the start credentials; `nil` when nothing opens it, so the collection is locked.
    private func reopen() -> Vault? {
        unlocked = nil
        held = nil
        answerForThisMessage = nil
        if let agent = VaultAgent.fromEnvironment(), let resolved = try? VaultAgent.resolvedPath(source.path) {
            _ = try? agent.lock(path: resolved)
        }
        if let credentials = source.credentials, fileExists(source.path) {
            held = try? Vault(path: source.path, credentials: credentials, configuration: source.configuration)
        }
        return vault()
    }

    /// Runs one atomic write (creating the standard vault first when it does not exist).
    package func write<T>(_ body: (inout VaultTransaction) throws -> T) throws(BusError) -> T {
        do {
            if willCreate, held == nil {
                held = try Vault.standard(configuration: source.configuration)
                answerForThisMessage = nil
            }
            guard let vault = vault() else { throw BusError.isLocked }
            do {
                return try vault.write(body)
            } catch  where Self.keysAreStale(error) {
                guard let fresh = reopen() else { throw BusError.isLocked }
                return try fresh.write(body)
            }
        } catch let error as BusError {
            throw error
        } catch {
            throw .failed("cannot write \(source.path): \(error)")
        }
    }
}

func fileExists(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0
}
