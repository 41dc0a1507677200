// vault-bench: one operation in a loop, for `perf record` or `valgrind --tool=callgrind`.

import Glibc
import VaultFormat
import VaultIO
import _VaultHooks

enum Profile {
    /// Repeats `op` (`set`, `get`, `get-location`, `list`, `index`, `verify`, `create`) `count` times on a
    /// vault of `n` items in `format` made with the cheap KDF.
    static func run(
        op: String,
        n: Int,
        count: Int,
        directory: String,
        password: [UInt8],
        format: BenchFormat = .v3
    ) throws {
        let path = directory + "/profile-\(n).vault"
        unlink(path)
        let drafts = Dataset.drafts(n)
        let vault = try FormatBench.make(format, at: path, drafts: drafts, password: password)
        let key = Dataset.primaryKey(Dataset.getIndex(n))
        let start = now()
        for run in 0..<count {
            try once(
                op,
                run: run,
                vault: vault,
                path: path,
                drafts: drafts,
                key: key,
                format: format,
                password: password
            )
        }
        printError("\(op) x\(count) at \(n): \((now() - start) / Double(count) * 1000) ms each")
    }

    /// One run of `op`: a function of its own, so that `valgrind --tool=callgrind
    /// --toggle-collect='$s11vault_bench7ProfileO4once*'` counts the loop and not the vault's making.
    @inline(never)
    static func once(
        _ op: String,
        run: Int,
        vault: Vault,
        path: String,
        drafts: [ItemDraft],
        key: PrimaryKey,
        format: BenchFormat,
        password: [UInt8]
    ) throws {
        let target = Dataset.setIndex(drafts.count)
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
        case "get-location":
            // As vaulttool get and Keychain find an item: by lookup tag, one node per level in format 3.
            try vault.read { snapshot in _ = try BenchmarkEntryPoints.secret(of: key, in: snapshot)! }
        case "list":
            _ = try vault.read { try $0.items(includeSecrets: false) }
        case "index":
            // Format 3: every tree read whole (Format3Store.contents()); 2.0: the index decrypted.
            _ = try vault.read { try $0.index.count }
        case "verify":
            _ = try vault.read { try $0.verify() }
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
            _ = try FormatBench.make(format, at: path, drafts: drafts, password: password)
        default:
            fail("unknown profile op '\(op)'")
        }
    }
}
