// vault-bench: rekey (issue 9 §1): a new master key, every record sealed again, the keyslot rewrapped.

import VaultFormat
import VaultIO

enum RekeyBench {
    /// Times `rekey` of the open vault of `n` items: one transaction that draws a new master key,
    /// reseals every record, rewraps the password keyslot (its KDF is the cheap 8 KiB/1/1, so the
    /// time is "without the KDF") and commits. Prints `rekey-inproc`.
    static func run(vault: Vault, n: Int, runs: Int, password: [UInt8]) throws {
        let options = RekeyOptions(credentials: [Credentials(password: SecretBytes(bytes: password))])
        var sample = Sample()
        for _ in 0..<runs {
            sample.runs.append(try timed { _ = try vault.write { txn in try txn.rekey(options) } })
        }
        emit(Result(op: "rekey-inproc", n: n, sample: sample))
    }
}
