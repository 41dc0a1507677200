// vault: committing a format-3 generation in place: append, write the other slot, fdatasync.

import Glibc
import VaultFormat

/// Writes a format-3 in-place commit into the vault file (Spec/format-v3.md §9.1, R3-WR-1), so
/// that a reader or a crash finds either the old commit or the new one, never a mixture.
///
/// 1. Open the vault for writing and check that it is the file the commit was built on (same
///    device and inode, and at least as long as that commit).
/// 2. Cut off the uncommitted tail of a commit that did not complete, if any.
/// 3. Append the commit's bytes after the previous commit.
/// 4. Write the other slot.
/// 5. `fdatasync` once.
///
/// No byte that the previous commit reaches is written, so a crash at any step leaves that commit
/// readable: a slot that reached the disk without its appended bytes fails its commit hash
/// (R3-SLT-3) and the reader takes the previous slot. When step 3, 4 or 5 fails, the other slot
/// gets back the bytes it held and the error names the step; a failed `fdatasync` is never
/// retried.
///
/// The caller holds the write lock.
struct InPlaceWriter {
    /// The vault being written.
    let target: VaultPath

    /// Writes `commit` into the file that `status` describes (the file the commit was built on),
    /// whose current slot holds `currentSlot`.
    ///
    /// - Throws: A ``VaultIOError`` whose operation names the step that failed: `"open"`,
    ///   `"fstat"`, `"read"`, `"truncate"`, `"append"`, `"write slot"` or `"fdatasync"`;
    ///   ``VaultIOError/Code/conflict`` when the path now holds another file, or another commit.
    func commit(_ commit: Format3Commit, onto status: FileStatus, currentSlot: [UInt8]) throws(VaultIOError) {
        let file = try step("open", target.path) { () throws(Errno) in
            try FileDescriptor.open(target.path, O_RDWR | O_NOFOLLOW)
        }
        defer { try? file.close() }
        // (1) The file the commit was built on, not one renamed over it since.
        let now = try step("fstat", target.path) { () throws(Errno) in try file.status() }
        guard now.identity == status.identity, now.size >= Int(commit.offset) else {
            throw VaultIOError(
                .conflict,
                operation: "write",
                path: target.path,
                reason: "the vault file was replaced or cut short while it was being written"
            )
        }
        // ... and the commit it was built on: a writer that does not take the write lock (or a copy
        // put in place under the same inode) must not have committed meanwhile.
        let currentOffset = commit.slotOffset == 0 ? CommitSlot.byteCount : 0
        let slotNow = try step("read", target.path) { () throws(Errno) in
            try file.read(count: CommitSlot.byteCount, at: currentOffset)
        }
        guard slotNow == currentSlot else {
            throw VaultIOError(
                .conflict,
                operation: "write",
                path: target.path,
                reason: "another writer committed to the vault while this write was prepared; write again"
            )
        }
        // (2) The tail of a commit that did not complete means nothing (R3-SLT-6).
        if now.size > Int(commit.offset) {
            try step("truncate", target.path) { () throws(Errno) in try file.truncate(to: Int(commit.offset)) }
        }
        let previousSlot = try step("read", target.path) { () throws(Errno) in
            try file.read(count: CommitSlot.byteCount, at: commit.slotOffset)
        }
        do {
            // (3) The new chunks, after the previous commit.
            try step("append", target.path) { () throws(Errno) in
                try file.writeVault(commit.appended, at: Int(commit.offset))
            }
            // (4) The other slot: the previous commit's stays as it is.
            try step("write slot", target.path) { () throws(Errno) in
                try file.writeVault(commit.slot, at: commit.slotOffset)
            }
            // (5) One barrier: a slot on disk without its chunks fails its commit hash.
            try step("fdatasync", target.path) { () throws(Errno) in try file.syncData() }
        } catch {
            // The other slot gets back what it held and the appended bytes go, so that the file is
            // the previous commit again; best effort, since the error already says the write failed
            // (a reader ignores what is left of either, R3-SLT-3, R3-SLT-6).
            try? file.writeVault(previousSlot, at: commit.slotOffset)
            try? file.truncate(to: Int(commit.offset))
            try? file.syncData()
            throw error
        }
    }
}
