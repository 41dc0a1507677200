// vault: where a vault lives: its resolved path, directory, lock file and temporary names.

import Glibc
import VaultFormat

/// The resolved location of a vault file and of the files that travel with it.
///
/// A vault path is resolved once, when the vault is opened or created: symbolic
/// links in it are followed (`realpath`) and every later read, lock and commit
/// uses the result. A commit renames a new file over the *target* of a
/// symlink, so the link itself stays a link; re-pointing the link while a
/// ``Vault`` is open does not redirect that `Vault`.
struct VaultPath: Hashable, Sendable {
    /// The absolute, resolved path of the vault file.
    let path: String
    /// The directory that holds it.
    let directory: String
    /// The file's name in ``directory``.
    let name: String

    /// The sidecar lock file, `<vault>.lock`. It exists while a writer holds the write
    /// lock; the holder removes it before releasing (see ``WriteLock``).
    var lockPath: String { path + ".lock" }

    /// Temporary files are named `.<vault>.tmp-<16 hex digits>`.
    var temporaryPrefix: String { "." + name + ".tmp-" }

    /// The number of random hex digits after ``temporaryPrefix``.
    static let temporarySuffixLength = 16

    /// A fresh temporary name in ``directory``.
    func makeTemporaryName() -> String {
        temporaryPrefix + Hex.encode(SystemRandom().bytes(Self.temporarySuffixLength / 2))
    }

    /// Whether `name` is one of this vault's temporary files (and not, say, another vault's).
    func isTemporaryName(_ candidate: String) -> Bool {
        guard candidate.hasPrefix(temporaryPrefix) else { return false }
        let suffix = candidate.utf8.dropFirst(temporaryPrefix.utf8.count)
        return suffix.count == Self.temporarySuffixLength
            && suffix.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The path of `name` in the vault's directory.
    func sibling(_ name: String) -> String { directory == "/" ? "/" + name : directory + "/" + name }

    // MARK: - Resolving

    /// Resolves the path of an existing vault, following symbolic links.
    ///
    /// - Throws: A ``VaultIOError`` with operation `"resolve path"` when the path does not exist.
    static func resolvingExisting(_ path: String) throws(VaultIOError) -> VaultPath {
        try checkSyntax(path)
        let resolved = try step("resolve path", path) { () throws(Errno) in try realpath(path) }
        return try split(resolved, original: path)
    }

    /// Resolves the path of a vault about to be created: its directory must exist
    /// and is resolved; the name itself is taken as given.
    static func resolvingNew(_ path: String) throws(VaultIOError) -> VaultPath {
        try checkSyntax(path)
        let (directory, name) = components(of: path)
        let resolved = try step("resolve path", directory) { () throws(Errno) in try realpath(directory) }
        return VaultPath(path: resolved == "/" ? "/" + name : resolved + "/" + name, directory: resolved, name: name)
    }

    private static func checkSyntax(_ path: String) throws(VaultIOError) {
        let name = components(of: path).name
        guard !path.isEmpty, !path.hasSuffix("/"), name != ".", name != "..", !path.utf8.contains(0) else {
            throw VaultIOError(.invalidPath, path: path, reason: "a vault path must name a file")
        }
    }

    private static func split(_ resolved: String, original: String) throws(VaultIOError) -> VaultPath {
        let (directory, name) = components(of: resolved)
        guard resolved != "/" else {
            throw VaultIOError(.invalidPath, path: original, reason: "a vault path must name a file")
        }
        return VaultPath(path: resolved, directory: directory, name: name)
    }

    /// Splits at the last `/`: `("/a/b", "c")`, `("/", "c")` or `(".", "c")`.
    private static func components(of path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }

    /// The canonical absolute path.
    ///
    /// The corresponding C function is `realpath`.
    private static func realpath(_ path: String) throws(Errno) -> String {
        guard let resolved = Syscalls.current.realpath(path) else { throw Errno.current }
        return resolved
    }

    // MARK: - Stale temporary files

    /// Removes temporary files that a crashed writer left behind. Call only while
    /// holding the write lock, so that no live writer's file is removed. Best effort:
    /// a directory that cannot be listed is left alone.
    ///
    /// The corresponding C functions are `opendir`, `readdir` and `unlinkat`.
    ///
    /// - Returns: The number of files removed.
    @discardableResult
    func removeStaleTemporaryFiles() -> Int {
        guard let names = Syscalls.current.readDirectory(directory) else { return 0 }
        let stale = names.filter(isTemporaryName)
        guard !stale.isEmpty,
            let directoryFD = try? FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
        else { return 0 }
        defer { try? directoryFD.close() }
        var removed = 0
        for name in stale where (try? directoryFD.unlink(name)) != nil { removed += 1 }
        return removed
    }
}
