// vaulttool secret-service: the method calls of Spec/secret-service.md §3.

import CSecretService
import Glibc
import VaultIO

extension SecretServiceProvider {
    /// Answers one call: `reply` gets the out-arguments; a thrown error becomes the error reply.
    ///
    /// Every method of every interface is one case. sd-bus itself refuses a member that the
    /// tables in CSecretService.c do not list, so the `default` case is only a safeguard.
    func call(
        path: String,
        interface: String,
        member: String,
        caller: String,
        _ r: MessageReader,
        _ reply: () throws(BusError) -> MessageWriter
    ) throws(BusError) {
        switch (interface, member) {
        case ("org.freedesktop.Secret.Service", "OpenSession"): try openSession(caller, r, reply())
        case ("org.freedesktop.Secret.Service", "SearchItems"):
            let wanted = try r.stringMap()
            var unlocked: [String] = []
            for c in collections { unlocked += try search(c, wanted) }
            let w = try reply()
            try w.objectPaths(unlocked)
            try w.objectPaths([])
        case ("org.freedesktop.Secret.Service", "GetSecrets"):
            let paths = try r.objectPaths()
            let sessionPath = try r.objectPath()
            let cipher = try session(sessionPath, caller: caller)
            let w = try reply()
            try w.open("a", "{o(oayays)}")
            for (path, item, secret) in try secrets(named: paths) {
                try w.open("e", "o(oayays)")
                try w.objectPath(path)
                try writeSecret(w, secret, cipher, sessionPath, SecretAttributes.contentType(of: item.attributes))
                try w.close()
            }
            try w.close()
        case ("org.freedesktop.Secret.Service", "Unlock"): try unlock(caller, try r.objectPaths(), reply())
        case ("org.freedesktop.Secret.Service", "Lock"):
            var locked: [String] = []
            for path in try r.objectPaths() {
                if let c = collection(owning: path), c.lock() { locked.append(path) }
            }
            let w = try reply()
            try w.objectPaths(locked)
            try w.objectPath("/")
        case ("org.freedesktop.Secret.Service", "ReadAlias"):
            let alias = try r.string()
            try reply().objectPath(alias == "default" ? defaultCollection?.objectPath ?? "/" : "/")
        case ("org.freedesktop.Secret.Service", "SetAlias"):
            throw .notSupported("the default collection is chosen on vaulttool's command line")
        case ("org.freedesktop.Secret.Service", "CreateCollection"):
            try r.skip("a{sv}")
            let alias = try r.string()
            guard let c = alias == "default" ? defaultCollection : collections.first(where: { $0.source.name == alias })
            else {
                throw .notSupported("create a vault with 'vaulttool create', then serve it with --vault")
            }
            let w = try reply()
            try w.objectPath(c.objectPath)
            try w.objectPath("/")
        case ("org.freedesktop.Secret.Collection", "SearchItems"):
            let c = try servedCollection(path)
            try reply().objectPaths(try search(c, try r.stringMap()))
        case ("org.freedesktop.Secret.Collection", "CreateItem"):
            let c = try servedCollection(path)
            let (item, created) = try createItem(in: c, caller, r)
            let w = try reply()
            try w.objectPath(item)
            try w.objectPath("/")
            emit(c.objectPath, "org.freedesktop.Secret.Collection", created ? "ItemCreated" : "ItemChanged", item)
            if created { propertiesChanged(c.objectPath, "org.freedesktop.Secret.Collection", ["Items"]) }
        case ("org.freedesktop.Secret.Collection", "Delete"):
            _ = try servedCollection(path)
            throw .notSupported("a vault file is deleted by its owner, not through the Secret Service")
        case ("org.freedesktop.Secret.Item", "GetSecret"):
            let sessionPath = try r.objectPath()
            let cipher = try session(sessionPath, caller: caller)
            let (c, item) = try servedItem(path)
            guard let secret = try c.secret(item.id) else { throw .noSuchObject(path) }
            try writeSecret(try reply(), secret, cipher, sessionPath, SecretAttributes.contentType(of: item.attributes))
        case ("org.freedesktop.Secret.Item", "SetSecret"):
            let (secret, contentType) = try readSecret(r, caller)
            let (c, item) = try servedItem(path)
            try rewrite(c, item.id, secret: secret) { a in
                SecretAttributes.setContentType(contentType, in: &a)
            }
            _ = try reply()
            emit(c.objectPath, "org.freedesktop.Secret.Collection", "ItemChanged", path)
        case ("org.freedesktop.Secret.Item", "Delete"):
            let (c, item) = try servedItem(path)
            _ = try c.write { txn in try txn.remove(id: item.id) }
            try reply().objectPath("/")
            emit(c.objectPath, "org.freedesktop.Secret.Collection", "ItemDeleted", path)
            propertiesChanged(c.objectPath, "org.freedesktop.Secret.Collection", ["Items"])
        case ("org.freedesktop.Secret.Session", "Close"):
            guard let s = sessions[path], s.owner == caller else { throw .noSession }
            s.cipher.close()
            sessions[path] = nil
            _ = try reply()
        case ("org.freedesktop.Secret.Prompt", "Prompt"):
            guard var p = prompts[path], p.owner == caller else { throw .noSuchObject(path) }
            p.started = true
            prompts[path] = p
            _ = try reply()
            askNext(path)
            completePrompts()
        case ("org.freedesktop.Secret.Prompt", "Dismiss"):
            guard let p = prompts[path], p.owner == caller else { throw .noSuchObject(path) }
            _ = try reply()
            complete(path, p, dismissed: true)
        default: throw .unknownMethod("\(interface).\(member) is not implemented")
        }
    }

    private func openSession(_ caller: String, _ r: MessageReader, _ w: MessageWriter) throws(BusError) {
        let algorithm = try r.string()
        let cipher: SessionCipher
        switch algorithm {
        case SessionCipher.plainAlgorithm:
            try r.skip("v")
            cipher = SessionCipher()
        case SessionCipher.dhAlgorithm, "dh-ietf1024-sha256_aes128_cbc_pkcs7":
            guard let (_, contents) = r.peek(), contents == "ay" else {
                throw .invalidArgs("the DH input must be a byte array")
            }
            try r.enter("v", "ay")
            let peer = try r.bytes(limit: BusLimits.textBytes)
            try r.exit()
            cipher = try SessionCipher(peer: Array(peer.drop { $0 == 0 }))
        default:
            throw .notSupported("algorithm \(algorithm) is not supported; use plain or \(SessionCipher.dhAlgorithm)")
        }
        // R-SS-9: a name keeps at most 64 sessions. secretstorage opens one per Item object and
        // never closes it, so a client reading many items must not be refused: the session this
        // name used least recently is closed instead.
        let owned = sessions.filter { $0.value.owner == caller }
        if owned.count >= 64, let oldest = owned.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            oldest.value.cipher.close()
            sessions[oldest.key] = nil
        }
        let path = newPath("session")
        sessionClock += 1
        sessions[path] = Session(owner: caller, cipher: cipher, lastUse: sessionClock)
        if cipher.publicValue.isEmpty {
            try w.open("v", "s")
            try w.string("")
        } else {
            try w.open("v", "ay")
            try w.bytes(cipher.publicValue)
        }
        try w.close()
        try w.objectPath(path)
    }

    private func unlock(_ caller: String, _ paths: [String], _ w: MessageWriter) throws(BusError) {
        var unlocked: [String] = []
        var waiting: [ServedCollection] = []
        var objects: [String] = []
        for path in paths {
            guard let c = collection(owning: path) else { continue }
            if c.isLocked {
                if !waiting.contains(where: { $0 === c }) { waiting.append(c) }
                objects.append(path)
            } else {
                unlocked.append(path)
            }
        }
        guard waiting.isEmpty || prompts.values.filter({ $0.owner == caller }).count < 64 else {
            throw .limits("at most 64 prompts per connection")
        }
        try w.objectPaths(unlocked)
        guard !waiting.isEmpty else { return try w.objectPath("/") }
        let path = newPath("prompt")
        prompts[path] = Prompt(
            owner: caller,
            collections: waiting,
            objects: objects,
            started: false,
            deadline: monotonicMilliseconds() + 300_000
        )
        try w.objectPath(path)
    }

    func collection(owning path: String) -> ServedCollection? {
        switch object(at: path) {
        case .collection(let c), .item(let c, _): return c
        default: return nil
        }
    }

    /// The collection a path names (by its name or an alias).
    private func servedCollection(_ path: String) throws(BusError) -> ServedCollection {
        guard case .collection(let c) = object(at: path) else { throw .noSuchObject(path) }
        return c
    }

    /// Reads `CreateItem`'s properties and secret and stores the item in `c`.
    ///
    /// - Returns: The item's path, and whether it is new (not a replaced one).
    private func createItem(
        in c: ServedCollection,
        _ caller: String,
        _ r: MessageReader
    ) throws(BusError) -> (item: String, created: Bool) {
        var label: String? = nil
        var map: [String: String]? = nil
        try r.enter("a", "{sv}")
        var count = 0
        while !r.atEnd {
            count += 1
            if count > BusLimits.attributes { throw .limits("more than \(BusLimits.attributes) properties") }
            try r.enter("e", "sv")
            let name = try r.string()
            let contents = r.peek()?.1
            switch name {
            case "org.freedesktop.Secret.Item.Label":
                guard contents == "s" else { throw .invalidArgs("\(name) must be a string (s)") }
                try r.enter("v", "s")
                label = try r.string()
                try r.exit()
            case "org.freedesktop.Secret.Item.Attributes":
                guard contents == "a{ss}" else { throw .invalidArgs("\(name) must be a string map (a{ss})") }
                try r.enter("v", "a{ss}")
                map = try r.stringMap()
                try r.exit()
            default: try r.skip("v")
            }
            try r.exit()
        }
        try r.exit()
        let (secret, contentType) = try readSecret(r, caller)
        _ = try r.bool()
        if c.isLocked { throw .isLocked }
        return try store(in: c, map: map ?? [:], label: label, secret: secret, contentType: contentType)
    }

    /// A `(oayays)` secret, decrypted with the caller's session.
    private func readSecret(_ r: MessageReader, _ caller: String) throws(BusError) -> (SecretBytes, String) {
        try r.enter("r", "oayays")
        let sessionPath = try r.objectPath()
        var parameters = try r.bytes(limit: 64)
        var value = try r.bytes()
        defer { SecretMemory.wipe(&value) }
        let contentType = try r.string()
        try r.exit()
        let cipher = try session(sessionPath, caller: caller)
        // Checked before decrypting too: a plain session's value is the secret itself.
        if cipher.isPlain, value.count > BusLimits.secretBytes { throw .limits("a secret is over 1 MiB") }
        let secret = try cipher.decrypt(parameters: parameters, value: value)
        SecretMemory.wipe(&parameters)
        if secret.count > BusLimits.secretBytes { throw .limits("a secret is over 1 MiB") }
        return (secret, contentType.isEmpty ? "text/plain" : contentType)
    }

    private func writeSecret(
        _ w: MessageWriter,
        _ secret: SecretBytes,
        _ cipher: SessionCipher,
        _ sessionPath: String,
        _ contentType: String
    ) throws(BusError) {
        var (parameters, value) = try cipher.encrypt(secret)
        defer { SecretMemory.wipe(&value) }
        try w.open("r", "oayays")
        try w.objectPath(sessionPath)
        try w.bytes(parameters)
        try w.bytes(value)
        try w.string(contentType)
        try w.close()
        parameters.removeAll()
    }
}

func monotonicMilliseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
}
