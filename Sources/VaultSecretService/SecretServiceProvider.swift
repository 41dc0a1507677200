// vaulttool secret-service: the objects of Spec/secret-service.md §2 and §3, answered from the
// served collections.

import CSecretService
import Glibc
import VaultIO

/// The provider: collections, sessions and prompts, and the answer to every call.
package final class SecretServiceProvider {
    static let root = "/org/freedesktop/secrets"
    package let collections: [ServedCollection]
    /// The collection the `default` alias names (R-SS-7).
    let defaultCollection: ServedCollection?
    var bus: OpaquePointer?

    struct Session {
        let owner: String
        let cipher: SessionCipher
        /// When the session was opened or last used, on `sessionClock` (R-SS-9 closes the least recent).
        var lastUse: UInt64
    }

    struct Prompt {
        let owner: String
        let collections: [ServedCollection]
        let objects: [String]
        var started: Bool
        let deadline: UInt64
        /// The askpass program running for it, and the collections it asked already (R-SS-16).
        var askpass: AskpassRun? = nil
        var asked: [ServedCollection] = []
    }

    var sessions: [String: Session] = [:]
    /// Counts session openings and uses.
    var sessionClock: UInt64 = 0
    var prompts: [String: Prompt] = [:]
    private var nextObject = 1
    /// Each caller's effective UID, asked of the bus once per unique name (R-SS-27).
    var callerUIDs: [String: uid_t] = [:]
    /// The executable policy, when on (R-SS-28), and its answer for each unique name.
    package var executablePolicy: ExecutablePolicy?
    var callerRefusals: [String: String?] = [:]
    /// Set when the provider must stop (the name was lost).
    var stopReason: String?

    package init(_ sources: [CollectionSource]) {
        collections = sources.map(ServedCollection.init)
        defaultCollection = collections.first(where: { $0.source.isStandard }) ?? collections.first
    }

    func newPath(_ kind: String) -> String {
        defer { nextObject += 1 }
        return "\(Self.root)/\(kind)/\(nextObject)"
    }

    // MARK: Paths

    enum Object {
        case service
        case collection(ServedCollection)
        case item(ServedCollection, ItemID)
        case session(String)
        case prompt(String)
    }

    func object(at path: String) -> Object? {
        if path == Self.root { return .service }
        guard path.hasPrefix(Self.root + "/") else { return nil }
        let parts = path.dropFirst(Self.root.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        switch (parts.first, parts.count) {
        case ("aliases", 2):
            return parts[1] == "default" ? defaultCollection.map(Object.collection) : nil
        case ("collection", 2), ("collection", 3):
            guard let c = collections.first(where: { $0.source.name == parts[1] }) else { return nil }
            if parts.count == 2 { return .collection(c) }
            guard parts[2].count == 32, let id = ItemID(hex: String(parts[2])) else { return nil }
            return .item(c, id)
        case ("session", 2): return sessions[path] != nil ? .session(path) : nil
        case ("prompt", 2): return prompts[path] != nil ? .prompt(path) : nil
        default: return nil
        }
    }

    func itemPath(_ c: ServedCollection, _ id: ItemID) -> String { c.objectPath + "/" + hex(id) }

    /// Whether an object with `interface` is at `path` (sd-bus's find callback).
    func exists(_ path: String, _ interface: String) -> Bool {
        switch object(at: path) {
        case .collection: return interface == "org.freedesktop.Secret.Collection"
        case .item(let c, let id): return interface == "org.freedesktop.Secret.Item" && (try? c.item(id)) != nil
        case .session: return interface == "org.freedesktop.Secret.Session"
        case .prompt: return interface == "org.freedesktop.Secret.Prompt"
        default: return false
        }
    }

    /// Every object path below the root, for introspection.
    func nodes() -> [String] {
        var out = ["\(Self.root)/aliases/default"]
        for c in collections {
            out.append(c.objectPath)
            for item in (try? c.items()) ?? [] { out.append(itemPath(c, item.id)) }
        }
        return out + sessions.keys.sorted() + prompts.keys.sorted()
    }

    // MARK: Items

    /// The item a path names, refusing a locked collection and an item that is gone.
    func servedItem(_ path: String) throws(BusError) -> (ServedCollection, ServedItem) {
        guard case .item(let c, let id) = object(at: path) else { throw .noSuchObject(path) }
        if c.isLocked { throw .isLocked }
        guard let item = try c.item(id) else { throw .noSuchObject(path) }
        return (c, item)
    }

    /// The secrets `GetSecrets` answers for `paths`: each path once, each collection read once;
    /// unknown and locked items left out.
    func secrets(named paths: [String]) throws(BusError) -> [(String, ServedItem, SecretBytes)] {
        var wanted: [(ServedCollection, Set<ItemID>)] = []
        for path in Set(paths) {
            guard case .item(let c, let id) = object(at: path), !c.isLocked else { continue }
            if let i = wanted.firstIndex(where: { $0.0 === c }) {
                wanted[i].1.insert(id)
            } else {
                wanted.append((c, [id]))
            }
        }
        var out: [(String, ServedItem, SecretBytes)] = []
        for (c, ids) in wanted {
            for (id, found) in try c.secrets(ids).sorted(by: { $0.key < $1.key }) {
                out.append((itemPath(c, id), found.item, found.secret))
            }
        }
        return out
    }

    func search(_ c: ServedCollection, _ wanted: [String: String]) throws(BusError) -> [String] {
        try c.items().filter { $0.matches(wanted) }.map { itemPath(c, $0.id) }
    }

    func session(_ path: String, caller: String) throws(BusError) -> SessionCipher {
        guard let s = sessions[path], s.owner == caller else { throw .noSession }
        sessionClock += 1
        sessions[path]!.lastUse = sessionClock
        return s.cipher
    }

    /// Writes `secret` under the identity `map` names (R-SS-25); returns the item's path and
    /// whether it is new.
    func store(
        in c: ServedCollection,
        map: [String: String],
        label: String?,
        secret: SecretBytes,
        contentType: String
    ) throws(BusError) -> (String, Bool) {
        let (itemClass, identity) = try SecretAttributes.identity(of: map)
        // R-SS-25: an item stored under an earlier release's mapping holds this very map in tag 64.
        // The encoding is canonical, so its bytes compare the maps byte for byte.
        let encoded = SecretAttributes.encode(map)
        let holdsMap = { (a: ItemAttributes) in SecretAttributes.storedBytes(of: a) == encoded }
        let earlier = try c.items().first { $0.itemClass == .genericPassword && holdsMap($0.attributes) }
        let (id, created): (ItemID, Bool) = try c.write { txn in
            var existing = try txn.item(identifiedBy: identity, itemClass: itemClass)
            if existing == nil, let earlier, let item = try txn.item(id: earlier.id), holdsMap(item.attributes) {
                existing = item
            }
            let result = try txn.upsert(itemClass, identity: identity, secret: secret, existing: existing) { a in
                if let label { a.label = label }
                SecretAttributes.setPreserved(SecretAttributes.mapTag, encoded, in: &a)
                SecretAttributes.setContentType(contentType, in: &a)
            }
            return (result.id, existing == nil)
        }
        return (itemPath(c, id), created)
    }

    /// Rewrites item `id` with `change` applied to its attributes, and `secret` when given.
    func rewrite(
        _ c: ServedCollection,
        _ id: ItemID,
        secret newSecret: SecretBytes? = nil,
        itemClass: ItemClass? = nil,
        _ change: (inout ItemAttributes) -> Void
    ) throws(BusError) {
        try c.write { txn in
            guard let entry = try txn.entry(for: id), var a = try txn.attributes(for: id),
                let secret = try newSecret ?? txn.secret(for: id)
            else { throw BusError.noSuchObject(id.description) }
            change(&a)
            a.modificationDate = txn.now
            let draft = ItemDraft(
                id: id,
                itemClass: itemClass ?? entry.itemClass,
                protectionClass: entry.protectionClass,
                attributes: a,
                secret: secret
            )
            try txn.set(draft, expecting: .version(entry.version))
        }
    }
}

func hex(_ id: ItemID) -> String { hexDigits(id.bytes) }

/// Lower-case hex of `bytes` (item paths, executable digests).
func hexDigits(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for b in bytes { out += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
    return String(decoding: out, as: UTF8.self)
}

/// One line on standard error, the provider's log (never a secret).
func log(_ text: String) {
    let line = Array("vaulttool: \(text)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
