// vault-bench: recipients (format 1.2): opening with an identity, and removing one with a rekey.

import Glibc
import VaultFormat
import VaultIO

enum RecipientBench {
    /// Makes `<directory>/recipients-<n>.vault` with `n` items and 32 recipients, then times:
    /// `recipient-open-first` and `recipient-open-last` (unlock with the identity of stanza 0 and of
    /// stanza 31: one X25519 against up to 32 trials, plus the index), and `recipient-rm-rekey`
    /// (remove one recipient, rekey: reseal `n` records and rewrap 31 stanzas). The password keyslot
    /// uses the cheap 8 KiB/1/1 KDF, so the times are "without the KDF".
    static func run(n: Int, runs: Int, directory: String, password: [UInt8]) throws {
        let path = directory + "/recipients-\(n).vault"
        unlink(path)
        let vault = try InProcess.make(at: path, n: n, kdf: kdf("8/1/1"), password: password)
        let identities = (0..<32).map { _ in RecipientIdentity.generate() }
        try vault.write { txn in
            try txn.upgradeToVersion12()
            for (index, identity) in identities.enumerated() {
                try txn.addRecipient(identity.recipient, name: "member-\(index)")
            }
        }
        let configuration = VaultConfiguration.insecureForTesting(kdf: kdf("8/1/1"))
        for (name, identity) in [("recipient-open-first", identities[0]), ("recipient-open-last", identities[31])] {
            var sample = Sample()
            for _ in 0..<runs {
                sample.runs.append(
                    try timed { _ = try Vault(path: path, credentials: .identity(identity), configuration: configuration) }
                )
            }
            emit(Result(op: name, n: n, sample: sample))
        }
        let options = RekeyOptions(credentials: [Credentials(password: SecretBytes(bytes: password))])
        var sample = Sample()
        for index in 0..<min(runs, 31) {
            let key = identities[index].recipient
            sample.runs.append(try timed { _ = try vault.write { txn in try txn.removeRecipient(key, rekey: options) } })
        }
        emit(Result(op: "recipient-rm-rekey", n: n, sample: sample))
    }
}
