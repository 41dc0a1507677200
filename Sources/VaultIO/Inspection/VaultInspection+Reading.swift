// vault: reading a vault's header for an inspection, and what a credential adds to it.

extension VaultInspection {
    /// Reads the header of the file at `path` (only the preamble and the header, not the whole
    /// file), checks its structure, and compares it with what this account recorded.
    ///
    /// A file that is not a vault or whose header is damaged is not an error: ``structure``
    /// says why.
    ///
    /// - Parameters:
    ///   - path: The vault file.
    ///   - describe: Words the error of a rollback record that cannot be read, for the warning
    ///     that says so.
    /// - Throws: ``VaultIOError`` when the file cannot be opened or read.
    public init(path: String, describingError describe: (any Error) -> String = { "\($0)" }) throws {
        let reader = try VaultFileReader(path: path)
        self.init(file: path, structure: Structure(ok: true, error: nil))
        do {
            let headerBytes = try reader.headerBytes()
            self.headerBytes = headerBytes
            let header = try VaultHeader.decode(headerBytes, fileLength: reader.fileLength)
            fill(header, headerLength: headerBytes.count, total: reader.fileLength)
            compareWithSeen(header, headerBytes: headerBytes, describe: describe)
        } catch let error as VaultFormatError {
            structure = Structure(ok: false, error: ErrorInfo(code: error.code.name, message: error.reason))
        }
    }

    /// With the newest generation a credential opened (which checked the header MAC, R-HDR-6):
    /// marks the values authenticated and decides fork or rollback by the master key
    /// (Spec/rollback.md L-RB-1), against the record as it was before the open.
    ///
    /// - Returns: `false`, with nothing changed, when the header the credential authenticated is
    ///   not the one read first (the file changed meanwhile): the values are not authenticated.
    @discardableResult
    public mutating func authenticate(with snapshot: VaultSnapshot) -> Bool {
        guard snapshot.headerBytes == headerBytes else { return false }
        authenticated = true
        if let live = snapshot.liveByteCount {
            // Format 3: the counts are in the encrypted root; the credential gives them.
            items = snapshot.itemCount
            deletions = snapshot.deletionCount
            sizes?.live = live
            if snapshot.skippedIncompleteCommit {
                warnings.append(
                    "the other commit slot is damaged or holds a commit that did not complete (a crash, a copy "
                        + "taken mid-commit, or damage): generation \(snapshot.header.generation) is read, and the "
                        + "next write discards the rest"
                )
            }
        }
        guard let recorded, let seen, seen.file == "older" || seen.file == "different" else { return true }
        warnings.removeAll { $0.hasPrefix("generation \(recorded.generation) of this vault was seen here before") }
        let file = SeenGeneration(snapshot)
        if let finding = recorded.finding(for: file) {
            self.seen = Seen(generation: recorded.generation, file: "rolledBack")
            warnings.append("this file was rolled back: \(finding); writes are refused without --accept-rollback")
        } else if recorded.fork(of: file) != nil {
            self.seen = Seen(generation: recorded.generation, file: "fork")
        }
        return true
    }

    private mutating func fill(_ header: VaultHeader, headerLength: Int, total: Int) {
        format = Version(major: Int(header.major), minor: Int(header.minor))
        vaultID = Hex.encode(header.vaultID)
        created = RFC3339.format(header.created, fractionalSeconds: false)
        generation = header.generation
        if header.followsVersion12Rules { recipients = header.recipientCount }
        if header.hasAccessGroups {
            limitedRecipients = header.limitedRecipientCount
            accessGroups = header.accessGroupCount
        }
        // The format must allow writing and this user must be able to replace the file.
        writable = header.isWritable && FileAccess.canReplace(file)
        if let committed = header.committedLength, let head = header.headByteCount {
            // Format 3: the counts are in the encrypted root; a credential gives them (authenticate).
            sizes = Sizes(
                header: head,
                index: nil,
                records: nil,
                committed: committed,
                uncommitted: total - committed,
                live: nil,
                total: total
            )
        } else {
            items = header.recordCount
            deletions = header.deletionCount
            sizes = Sizes(
                header: headerLength,
                index: header.indexLength,
                records: header.recordsLength,
                committed: nil,
                uncommitted: nil,
                live: nil,
                total: total
            )
        }
        for (index, slot) in header.keyslots.enumerated() {
            let kdf = slot.kdf.map {
                KDF(memoryKiB: Int($0.memoryKiB), iterations: Int($0.iterations), lanes: Int($0.lanes))
            }
            let weak = slot.kdf?.isWeak ?? false
            let tpm2 = header.tpm2Binding(for: slot).map {
                TPM2Policy(pcrs: $0.sealed.pcrs, pin: $0.sealed.requiresPIN)
            }
            let kind = tpm2 == nil ? slot.kind.description : "tpm2"
            keyslots.append(
                Slot(index: index, kind: kind, scope: slot.scope.description, kdf: kdf, weak: weak, tpm2: tpm2)
            )
            if weak {
                warnings.append(
                    "keyslot #\(index) uses weak Argon2id parameters (below \(KDFParameters.minimumMemoryKiB) KiB or \(KDFParameters.minimumIterations) passes); run 'vaulttool migrate' to raise them"
                )
            }
        }
        if !header.isWritable {
            warnings.append(
                "format \(header.major).\(header.minor) is newer than this vaulttool: the vault is read-only here"
            )
        } else if writable == false {
            warnings.append(
                "this user cannot replace the file (its directory is not writable here): the vault is read-only"
            )
        }
    }

    /// Compares the (unauthenticated) header with what this account recorded of the vault.
    private mutating func compareWithSeen(
        _ header: VaultHeader,
        headerBytes: [UInt8],
        describe: (any Error) -> String
    ) {
        let recorded: SeenGeneration?
        do {
            recorded = try RollbackGuard(.standard).recorded(vaultID: header.vaultID)
        } catch {
            warnings.append("the rollback state of this vault cannot be read: \(describe(error))")
            return
        }
        guard let recorded else { return }
        self.recorded = recorded
        let file = SeenGeneration(vaultID: header.vaultID, generation: header.generation, headerBytes: headerBytes)
        let comparison =
            if let finding = recorded.finding(for: file) {
                finding.kind == .olderGeneration ? "older" : "different"
            } else {
                file.generation > recorded.generation ? "newer" : "same"
            }
        seen = Seen(generation: recorded.generation, file: comparison)
        if comparison == "older" || comparison == "different" {
            warnings.append(
                "generation \(recorded.generation) of this vault was seen here before: this file is \(comparison == "older" ? "older" : "a different copy at that generation"); it is a fork (another git branch, a discarded commit) or a copy put back: inspect it with a credential to tell"
            )
        }
    }
}
