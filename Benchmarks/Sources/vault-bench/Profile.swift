// vault-bench: one operation in a loop, for `perf record` or `valgrind --tool=callgrind`.

import Glibc
import VaultFormat
import VaultIO

enum Profile {
    /// Repeats `op` (`set`, `get`, `list`, `create`) `count` times on a vault of `n` items made with the cheap KDF.
    static func run(op: String, n: Int, count: Int, directory: String, password: [UInt8]) throws {
        let path = directory + "/profile-\(n).vault"
        unlink(path)
        let drafts = Dataset.drafts(n)
        let vault = try InProcess.make(at: path, n: n, kdf: InProcess.cheapKDF, password: password, drafts: drafts)
        let key = Dataset.primaryKey(Dataset.getIndex(n))
        let target = Dataset.setIndex(n)
        let start = now()
        for run in 0..<count {
            switch op {
            case "set":
                let draft = ItemDraft(
                    id: drafts[target].id,
                    attributes: Dataset.attributes(target),
                    secret: SecretBytes(bytes: Dataset.newSecret(run))
                )
                try vault.write { txn in try txn.set(draft) }
            case "get":
                try vault.read { snapshot in _ = try snapshot.secret(at: try snapshot.position(of: key)!) }
            case "list":
                _ = try vault.read { try $0.items(includeSecrets: false) }
            case "list-memory":
                // The same scan over the file's bytes in memory: what per-record `pread`s cost.
                let file = try VaultFileReader(path: path)
                let bytes = Array(try file.read(offset: 0, count: file.fileLength))
                let snapshot = try VaultSnapshot.open(
                    headerBytes: try file.headerBytes(),
                    fileLength: bytes.count,
                    source: InMemoryFile(bytes),
                    keys: try vault.read { $0.keys },
                    openedKeyslot: 0
                )
                _ = try snapshot.items(includeSecrets: false)
            case "create":
                unlink(path)
                _ = try InProcess.make(at: path, n: n, kdf: InProcess.cheapKDF, password: password, drafts: drafts)
            default:
                fail("unknown profile op '\(op)'")
            }
        }
        printError("\(op) x\(count) at \(n): \((now() - start) / Double(count) * 1000) ms each")
    }
}
