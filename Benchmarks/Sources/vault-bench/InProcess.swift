// vault-bench: our operations, timed inside one process.

import Glibc
import VaultFormat
import VaultIO

/// The in-process measurements for one vault size.
struct InProcess {
    /// The test-only cheap KDF: below the writer floor, accepted by every reader (R-KS-2).
    static let cheapKDF = KDFParameters(memoryKiB: 8, iterations: 1, lanes: 1)

    let n: Int
    let runs: Int
    let directory: String
    let password: [UInt8]

    var credentials: Credentials { Credentials(password: SecretBytes(bytes: password)) }

    /// Creates a vault at `path` with items `0..<n` in one transaction; returns the open vault.
    static func make(at path: String, n: Int, kdf: KDFParameters, password: [UInt8], drafts: [ItemDraft]? = nil)
        throws -> Vault
    {
        let configuration = VaultConfiguration.insecureForTesting(kdf: kdf)
        let vault = try Vault.create(
            at: path,
            credentials: Credentials(password: SecretBytes(bytes: password)),
            configuration: configuration
        )
        let drafts = drafts ?? Dataset.drafts(n)
        if !drafts.isEmpty {
            try vault.write { txn in for draft in drafts { try txn.set(draft) } }
        }
        return vault
    }

    /// Runs every operation and prints one result line each. Leaves the vault at `<directory>/vault-<n>.vault`.
    func run() throws {
        let path = directory + "/vault-\(n).vault"
        let drafts = Dataset.drafts(n)

        // Create: the empty vault and all n items in one transaction, cheap KDF (so the time is "without the KDF").
        var create = Sample()
        var vault: Vault!
        for _ in 0..<runs {
            unlink(path)
            vault = nil
            create.runs.append(
                try timed {
                    vault = try Self.make(at: path, n: n, kdf: Self.cheapKDF, password: password, drafts: drafts)
                }
            )
        }
        emit(Result(op: "create", n: n, sample: create))

        var status = stat()
        stat(path, &status)
        let fileSize = Int(status.st_size)
        emit(
            Result(
                op: "bytes",
                n: n,
                sample: Sample(runs: [Double(fileSize)]),
                extra: [("per_item", String(Double(fileSize) / Double(max(n, 1))))]
            )
        )

        let key = Dataset.primaryKey(Dataset.getIndex(n))
        let cheapRuns = max(runs, 21)

        // Open + get one, keys held (no KDF): Vault.read opens the newest generation, checks the header MAC,
        // decrypts the index, finds the tag, decrypts the attributes and the secret.
        var get = Sample()
        for _ in 0..<cheapRuns {
            get.runs.append(
                try timed {
                    try vault.read { snapshot in
                        guard let position = try snapshot.position(of: key) else { fatalError("item missing") }
                        _ = try snapshot.secret(at: position)
                    }
                }
            )
        }
        emit(Result(op: "get-inproc", n: n, sample: get))

        // Open + get one from the file with credentials and the cheap KDF (8 KiB, 1 pass): a fresh open.
        var getCheap = Sample()
        for _ in 0..<cheapRuns {
            getCheap.runs.append(
                try timed {
                    let snapshot = try VaultFileReader(path: path).open(with: credentials)
                    guard let position = try snapshot.position(of: key) else { fatalError("item missing") }
                    _ = try snapshot.secret(at: position)
                }
            )
        }
        emit(Result(op: "get-inproc-cheapkdf", n: n, sample: getCheap))

        // Set one (a full commit) beside write + fsync of a file of the same size, interleaved.
        var set = Sample()
        var floor = Sample()
        let target = Dataset.setIndex(n)
        for run in 0..<max(runs, 7) {
            let draft = ItemDraft(
                id: drafts.isEmpty ? ItemID(random: SystemRandom()) : drafts[target].id,
                attributes: Dataset.attributes(target),
                secret: SecretBytes(bytes: Dataset.newSecret(run))
            )
            floor.runs.append(Floors.writeAndSync(count: fileSize, in: directory))
            set.runs.append(try timed { try vault.write { txn in try txn.set(draft) } })
        }
        emit(Result(op: "set-inproc", n: n, sample: set))
        emit(Result(op: "write-fsync-floor", n: n, sample: floor))

        // The rollback check (Spec/rollback.md): the same vault opened with the per-user record kept in
        // <directory>/state. A read also reads the record; a set also writes it durably. Interleaved with
        // unchecked runs, so that both see the same disk.
        var checked = VaultConfiguration.insecureForTesting(kdf: Self.cheapKDF)
        checked.rollbackState = .directory(directory + "/state")
        let guarded = try Vault(path: path, credentials: credentials, configuration: checked)
        var getChecked = Sample()
        var getUnchecked = Sample()
        for _ in 0..<cheapRuns {
            for (handle, sample) in [(guarded, 0), (vault!, 1)] {
                let time = try timed {
                    try handle.read { snapshot in
                        guard let position = try snapshot.position(of: key) else { fatalError("item missing") }
                        _ = try snapshot.secret(at: position)
                    }
                }
                if sample == 0 { getChecked.runs.append(time) } else { getUnchecked.runs.append(time) }
            }
        }
        emit(Result(op: "get-inproc-rollback", n: n, sample: getChecked))
        emit(Result(op: "get-inproc-unchecked", n: n, sample: getUnchecked))
        var setChecked = Sample()
        var setUnchecked = Sample()
        for run in 0..<max(runs, 7) {
            for (handle, sample) in [(guarded, 0), (vault!, 1)] {
                let draft = ItemDraft(
                    id: drafts.isEmpty ? ItemID(random: SystemRandom()) : drafts[target].id,
                    attributes: Dataset.attributes(target),
                    secret: SecretBytes(bytes: Dataset.newSecret(run * 2 + sample))
                )
                let time = try timed { try handle.write { txn in try txn.set(draft) } }
                if sample == 0 { setChecked.runs.append(time) } else { setUnchecked.runs.append(time) }
            }
        }
        emit(Result(op: "set-inproc-rollback", n: n, sample: setChecked))
        emit(Result(op: "set-inproc-unchecked", n: n, sample: setUnchecked))

        // List: every item's attributes.
        var list = Sample()
        for _ in 0..<runs {
            list.runs.append(try timed { _ = try vault.read { try $0.items(includeSecrets: false) } })
        }
        emit(Result(op: "list-inproc", n: n, sample: list))

        // Verify: every record's attributes and secret, and primary-key uniqueness.
        var verify = Sample()
        for _ in 0..<runs {
            verify.runs.append(try timed { _ = try vault.read { try $0.verify() } })
        }
        emit(Result(op: "verify-inproc", n: n, sample: verify))

        // Rekey: last, since it replaces every record.
        try RekeyBench.run(vault: vault, n: n, runs: runs, password: password)
    }

    /// Unlock alone (keyslot KDF, unwrap, ~30 subkeys, header MAC) beside libargon2's own time for the same
    /// parameters, interleaved, plus the unlock of a cheap-KDF vault (the part that is not Argon2).
    static func unlock(kdf: KDFParameters, runs: Int, directory: String, password: [UInt8]) throws {
        let path = directory + "/unlock.vault"
        unlink(path)
        _ = try make(at: path, n: 0, kdf: kdf, password: password)
        let reader = try VaultFileReader(path: path)
        let headerBytes = try reader.headerBytes()
        let header = try VaultHeader.decode(headerBytes, fileLength: reader.fileLength)
        let credentials = Credentials(password: SecretBytes(bytes: password))
        var unlock = Sample()
        var argon2 = Sample()
        for run in 0..<runs {
            // Alternate which goes first, so neither always follows the other's page faults.
            if run % 2 == 0 { argon2.runs.append(Floors.argon2(kdf, password: password)) }
            unlock.runs.append(
                try timed { _ = try VaultSnapshot.unlock(header, headerBytes: headerBytes, with: credentials) }
            )
            if run % 2 == 1 { argon2.runs.append(Floors.argon2(kdf, password: password)) }
        }
        let params = "\"\(kdf.memoryKiB)/\(kdf.iterations)/\(kdf.lanes)\""
        emit(Result(op: "unlock", n: 0, sample: unlock, extra: [("kdf", params)]))
        emit(Result(op: "argon2-floor", n: 0, sample: argon2, extra: [("kdf", params)]))

        // The rest of an unlock, with Argon2 made negligible (8 KiB, 1 pass): unwrap, subkeys, MAC.
        let cheapPath = directory + "/unlock-cheap.vault"
        unlink(cheapPath)
        _ = try make(at: cheapPath, n: 0, kdf: cheapKDF, password: password)
        let cheapReader = try VaultFileReader(path: cheapPath)
        let cheapHeaderBytes = try cheapReader.headerBytes()
        let cheapHeader = try VaultHeader.decode(cheapHeaderBytes, fileLength: cheapReader.fileLength)
        var rest = Sample()
        var cheapArgon2 = Sample()
        for _ in 0..<max(runs, 51) {
            cheapArgon2.runs.append(Floors.argon2(cheapKDF, password: password))
            rest.runs.append(
                try timed {
                    _ = try VaultSnapshot.unlock(cheapHeader, headerBytes: cheapHeaderBytes, with: credentials)
                }
            )
        }
        emit(Result(op: "unlock-cheapkdf", n: 0, sample: rest, extra: [("kdf", "\"8/1/1\"")]))
        emit(Result(op: "argon2-floor-cheapkdf", n: 0, sample: cheapArgon2, extra: [("kdf", "\"8/1/1\"")]))
        unlink(path)
        unlink(cheapPath)
    }
}
