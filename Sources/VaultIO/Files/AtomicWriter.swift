// vault: committing a new copy of a file with write, fsync, rename and fsync.

internal import CVaultSys
import Glibc

/// Puts a complete new file in place of a vault, so that readers and crashes see
/// either the old bytes or the new ones, never a mixture.
///
/// The recipe, in the manner of SQLite's checkpoint: the `fsync` calls are
/// write barriers. The new bytes are durable before the name points at them
/// (4), and the name change is durable before the commit is reported (7).
///
/// 1. Create a temporary file `.<vault>.tmp-<random>` in the vault's directory,
///    exclusively (`O_CREAT | O_EXCL`, mode `0600`).
/// 2. When replacing, give it the old file's permissions and owner.
/// 3. Write every byte.
/// 4. `fsync` the file.
/// 5. `close` it.
/// 6. Rename it over the vault.
/// 7. `fsync` the directory.
///
/// The commit succeeds only after step 7. When any step fails, the temporary
/// file is removed, the vault keeps its old bytes, and the ``VaultIOError``
/// names the step. A failed `fsync` is never retried.
///
/// Step 6 swaps the two names with `renameat2(RENAME_EXCHANGE)`, so that when
/// step 7 fails the swap can be undone and the old file returns under the
/// vault's name; the old file, now under the temporary name, is removed after
/// step 7. A new vault is renamed with `RENAME_NOREPLACE`, so that `create`
/// never replaces a file. On a file system without these flags (`EINVAL`), the
/// writer falls back to a plain `rename` (which cannot be undone after a failed
/// directory `fsync`) and to `link` + `unlink` for creation.
///
/// The caller holds the write lock, so no other writer uses the directory's
/// temporary names meanwhile.
struct AtomicWriter {
    /// What the commit does to the vault's name.
    enum Disposition {
        /// The vault does not exist yet; fail with ``VaultIOError/Code/alreadyExists`` if it does.
        case create
        /// Replace the vault, whose permissions and owner were `FileStatus`.
        case replace(FileStatus)
    }

    /// The vault being written.
    let target: VaultPath

    /// Writes `bytes` as the vault's new content.
    ///
    /// - Throws: A ``VaultIOError`` whose operation names the step that failed:
    ///   `"open directory"`, `"create temporary file"`, `"fstat temporary file"`,
    ///   `"chmod temporary file"`, `"chown temporary file"`, `"write temporary file"`,
    ///   `"fsync temporary file"`, `"close temporary file"`, `"rename"` or `"fsync directory"`;
    ///   ``VaultIOError/Code/alreadyExists`` when creating over an existing file.
    func commit(_ bytes: [UInt8], _ disposition: Disposition) throws(VaultIOError) {
        let directory = try step("open directory", target.directory) { () throws(Errno) in
            try FileDescriptor.open(target.directory, O_RDONLY | O_DIRECTORY)
        }
        defer { try? directory.close() }

        // (1) Create the temporary file next to the vault, so that the rename stays
        //     inside one file system, exclusively so that no other file is reused.
        let temporaryName = target.makeTemporaryName()
        let temporaryPath = target.sibling(temporaryName)
        let file = try step("create temporary file", temporaryPath) { () throws(Errno) in
            try directory.createExclusive(temporaryName, mode: 0o600)
        }
        // Steps (2) to (4) run inside `fill`, which then closes the file (5) and removes it when
        // any of these steps fails.
        try DurableFile.fill(
            file,
            named: temporaryName,
            in: directory,
            path: temporaryPath,
            closing: "close temporary file"
        ) { () throws(VaultIOError) in
            // (2) When replacing, give the new file the old one's permissions and owner.
            if case .replace(let old) = disposition {
                let new = try step("fstat temporary file", temporaryPath) { () throws(Errno) in try file.status() }
                if old.user != new.user || old.group != new.group {
                    try step("chown temporary file", temporaryPath) { () throws(Errno) in
                        try file.setOwner(
                            user: old.user == new.user ? uid_t.max : old.user,
                            group: old.group == new.group ? gid_t.max : old.group
                        )
                    }
                }
                try step("chmod temporary file", temporaryPath) { () throws(Errno) in
                    try file.setPermissions(old.permissions & 0o777)
                }
            }
            // (3) Write every byte; short writes loop and EINTR retries.
            try step("write temporary file", temporaryPath) { () throws(Errno) in
                try bytes.withUnsafeBytes { buffer in Result { () throws(Errno) in try file.writeAll(buffer) } }.get()
            }
            // (4) Make the bytes durable before any name points at them. Never retried.
            try step("fsync temporary file", temporaryPath) { () throws(Errno) in try file.sync() }
        }
        // (5) Closed by `fill`: a failed close (EIO on some file systems) fails the commit too.

        // (6) Put the new file under the vault's name in one atomic step.
        let swapped: Bool
        do {
            swapped = try rename(temporaryName, in: directory, disposition)
        } catch {
            try? directory.unlink(temporaryName)
            throw error
        }

        // (7) Make the new name durable. Only now has the commit happened.
        do {
            try step("fsync directory", target.directory) { () throws(Errno) in try directory.sync() }
        } catch {
            undoRename(temporaryName, in: directory, disposition, swapped: swapped)
            throw error
        }

        // The old generation now lives under the temporary name; remove it. A failure
        // here leaves a stale temporary file that the next writer removes under the lock.
        if swapped { try? directory.unlink(temporaryName) }
    }

    /// Step 6. Returns whether the names were exchanged (so the old file is now `temporaryName`).
    private func rename(_ temporaryName: String, in directory: FileDescriptor, _ disposition: Disposition)
        throws(VaultIOError) -> Bool
    {
        let flags = CUnsignedInt(disposition.isCreate ? VAULT_RENAME_NOREPLACE : VAULT_RENAME_EXCHANGE)
        do {
            try directory.rename(temporaryName, to: target.name, flags: flags)
            return !disposition.isCreate
        } catch let errno where errno == .invalidArgument || errno == .noFunction {
            // The file system lacks renameat2's flags: fall back to what POSIX offers.
            do {
                if disposition.isCreate {
                    try directory.link(temporaryName, as: target.name)
                    try? directory.unlink(temporaryName)
                } else {
                    try directory.rename(temporaryName, to: target.name)
                }
                return false
            } catch {
                throw renameError(error)
            }
        } catch {
            throw renameError(error)
        }
    }

    private func renameError(_ errno: Errno) -> VaultIOError {
        if errno == .fileExists {
            return VaultIOError(
                .alreadyExists,
                operation: "rename",
                errno: errno,
                path: target.path,
                reason: "a file is already there"
            )
        }
        return VaultIOError.system("rename", errno, path: target.path)
    }

    /// After a failed directory `fsync`, puts the old file back under the vault's name
    /// (or removes a vault just created), so that the failure leaves what was there before.
    private func undoRename(
        _ temporaryName: String,
        in directory: FileDescriptor,
        _ disposition: Disposition,
        swapped: Bool
    ) {
        if swapped {
            // Swap back: the old file returns to the vault's name, the new one to the temporary name.
            if (try? directory.rename(temporaryName, to: target.name, flags: CUnsignedInt(VAULT_RENAME_EXCHANGE)))
                != nil
            {
                try? directory.unlink(temporaryName)
            }
        } else if disposition.isCreate {
            try? directory.unlink(target.name)
        }
        // A plain rename (the fallback) cannot be undone: the new file stays, and the error still reports
        // that durability was not confirmed.
    }
}

extension AtomicWriter.Disposition {
    var isCreate: Bool {
        if case .create = self { return true }
        return false
    }
}
