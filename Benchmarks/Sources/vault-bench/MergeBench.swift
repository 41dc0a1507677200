// vault-bench: merge (issue 10): two replicas of N items with `changes` changes each, merged.

import Glibc
import VaultFormat
import _VaultHooks
import VaultIO

enum MergeBench {
    /// For each N: a base vault of N items, and two replicas of it that each edit, add and delete
    /// `changes` items (a tenth of the edits on the same items, so there are conflicts). Times
    /// the merge plus `encode` of the result, three-way (`merge-3way`) and two-way
    /// (`merge-2way`), with the files already open: the figure excludes the one KDF per file
    /// (the `argon2-floor` line of `inprocess` gives it). Prints one JSON line per operation.
    static func run(sizes: [Int], changes: Int, runs: Int, directory: String, password: [UInt8]) throws {
        let credentials = Credentials(password: SecretBytes(bytes: password))
        for n in sizes {
            let path = directory + "/merge-base-\(n).vault"
            unlink(path)
            _ = try InProcess.make(at: path, n: n, kdf: InProcess.cheapKDF, password: password)
            let reader = try VaultFileReader(path: path)
            let baseBytes = Array(try reader.read(offset: 0, count: reader.fileLength))
            let base = try VaultSnapshot.open(baseBytes, with: credentials)
            let ours = try VaultSnapshot.open(
                try BenchmarkEntryPoints.replica(of: base, side: 0, changes: changes, now: Vault.currentTime()),
                with: credentials
            )
            let theirs = try VaultSnapshot.open(
                try BenchmarkEntryPoints.replica(of: base, side: 1, changes: changes, now: Vault.currentTime() + 1),
                with: credentials
            )
            let clock = Vault.currentTime()
            for (op, ancestor) in [("merge-3way", Optional(base)), ("merge-2way", nil)] {
                var sample = Sample()
                var conflicts = 0
                var bytes = 0
                for _ in 0..<runs {
                    sample.runs.append(
                        try timed {
                            (bytes, conflicts) = try BenchmarkEntryPoints.mergeAndEncode(
                                ours: ours,
                                theirs: theirs,
                                base: ancestor,
                                now: clock
                            )
                        }
                    )
                }
                emit(
                    Result(
                        op: op,
                        n: n,
                        sample: sample,
                        extra: [("changes", "\(changes)"), ("conflicts", "\(conflicts)"), ("bytes", "\(bytes)")]
                    )
                )
            }
        }
    }
}
