// vaulttool secret-service: the executables allowed to use the provider (Spec/secret-service.md
// R-SS-28): the allow list file, and the check of a caller's running binary against it.

import CSecretService
import FoundationEssentials
import Glibc
import VaultIO

/// The allow list: which executable, by path and SHA-256 of its bytes, may call the provider.
package struct ExecutableAllowList: Equatable {
    package struct Entry: Equatable {
        package var digest: [UInt8]
        package var path: String
    }

    package var entries: [Entry] = []

    package init() {}

    /// `$XDG_CONFIG_HOME/vault/secret-service-executables`, `nil` without a home.
    package static func defaultPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            return config + "/vault/secret-service-executables"
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/vault/secret-service-executables"
    }

    /// The list in `text`; `nil` when a line is neither empty, a comment nor an entry.
    package init?(parsing text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard line.hasPrefix("sha256:"), let space = line.firstIndex(of: " ") else { return nil }
            let hex = line[line.index(line.startIndex, offsetBy: 7)..<space]
            let path = String(line[line.index(after: space)...])
            guard hex.utf8.count == 64, let digest = Self.bytes(hex), path.hasPrefix("/") else { return nil }
            entries.append(Entry(digest: digest, path: path))
        }
    }

    /// The file's text: one line per entry.
    package var text: String {
        entries.map { "sha256:" + Self.hex($0.digest) + " " + $0.path + "\n" }.joined()
    }

    /// Whether an entry has both `path` and `digest`.
    package func allows(path: String, digest: [UInt8]) -> Bool {
        entries.contains { $0.path == path && $0.digest == digest }
    }

    /// Replaces the entry for `path` by one with `digest`.
    package mutating func allow(path: String, digest: [UInt8]) {
        entries.removeAll { $0.path == path }
        entries.append(Entry(digest: digest, path: path))
    }

    /// Removes the entry for `path`; returns whether there was one.
    package mutating func disallow(path: String) -> Bool {
        let before = entries.count
        entries.removeAll { $0.path == path }
        return entries.count != before
    }

    /// The SHA-256 of the file open at `fd` (libsodium's), `nil` when it cannot be read.
    package static func digest(ofFileAt fd: Int32) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        return vss_sha256_fd(fd, &digest) == 0 ? digest : nil
    }

    /// Lower-case hex of a digest, as the file writes it.
    package static func hex(_ bytes: [UInt8]) -> String { hexDigits(bytes) }

    private static func bytes(_ hex: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8? = nil
        for c in hex.utf8 {
            let v: UInt8
            switch c {
            case 0x30...0x39: v = c - 0x30
            case 0x61...0x66: v = c - 0x61 + 10
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return out
    }
}

/// Why the allow list file cannot be used.
package struct AllowListError: Error, CustomStringConvertible {
    package let description: String
}

/// The policy of a running provider: the list, read again when its file changes.
package final class ExecutablePolicy {
    package let path: String
    /// The list as last read.
    package private(set) var list = ExecutableAllowList()
    private var stamp: [Int] = []
    /// Set when the file became unusable while serving: every caller is denied (logged once).
    private var broken: String?

    /// Reads the list at `path`; a missing file is an empty list.
    package init(path: String) throws(AllowListError) {
        self.path = path
        try reload()
    }

    /// Reads the file again when its inode, size or modification time changed.
    private func reload() throws(AllowListError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            (list, stamp) = (ExecutableAllowList(), [])
            return
        }
        let now = [Int(st.st_ino), Int(st.st_size), st.st_mtim.tv_sec, st.st_mtim.tv_nsec]
        if now == stamp { return }
        guard st.st_uid == geteuid(), st.st_mode & 0o022 == 0 else {
            throw AllowListError(description: "\(path) must be owned by this user and writable by nobody else")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, let bytes = try? SecretInput.read(descriptor: fd, limit: 1 << 20, path: path) else {
            if fd >= 0 { close(fd) }
            throw AllowListError(description: "cannot read \(path)")
        }
        close(fd)
        guard let text = String(validating: bytes, as: UTF8.self), let parsed = ExecutableAllowList(parsing: text)
        else { throw AllowListError(description: "\(path) is not an allow list (see Spec/secret-service.md R-SS-28)") }
        (list, stamp) = (parsed, now)
    }

    /// Why process `pid`, running `executable`, may not call; `nil` when it may.
    package func refusal(pid: pid_t, executable: String) -> String? {
        if broken == nil {
            do {
                try reload()
            } catch {
                broken = error.description
                log("\(error.description); every caller is denied")
            }
        }
        let denied =
            "the executable \(executable) is not allowed to use this provider; allow it with "
            + "'vaulttool secret-service --allow-executable \(executable)'"
        // Only a listed path is hashed: an unlisted program cannot make the provider read its file.
        guard broken == nil, list.entries.contains(where: { $0.path == executable }) else { return denied }
        let fd = open("/proc/\(pid)/exe", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return denied }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size <= Self.largestExecutable else { return denied }
        // ctime too: an owner can put the modification time back after changing the file, not the ctime.
        let file = [
            Int(st.st_dev), Int(st.st_ino), Int(st.st_size), st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
            st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
        ]
        let digest: [UInt8]
        if let known = digests[file] {
            digest = known
        } else {
            guard let computed = ExecutableAllowList.digest(ofFileAt: fd) else { return denied }
            digests[file] = computed
            digest = computed
        }
        return list.allows(path: executable, digest: digest) ? nil : denied
    }

    /// The largest executable hashed (R-SS-28); a larger one is denied unread.
    package static let largestExecutable = 512 << 20

    /// Digests of executables already read, by device, inode, size, modification and change time.
    private var digests: [[Int]: [UInt8]] = [:]
}

extension ExecutablePolicy {
    /// `--allow-executable` and `--disallow-executable`: reads the list at `path` as a serving
    /// provider does (refusing a file that is not this user's or not a list), allows each of
    /// `allow` by the SHA-256 of its bytes, removes each of `disallow`, and writes the list back
    /// atomically with mode 0600, its directory made first.
    ///
    /// - Parameters:
    ///   - path: The allow list file (``ExecutableAllowList/defaultPath(environment:)``).
    ///   - allow: Executables to allow, as named on the command line.
    ///   - disallow: Executables to remove, as named on the command line.
    ///   - resolve: A name as the bus reports a running program (looked up on `PATH`, links
    ///     followed); a name to disallow that does not resolve is taken as it is.
    /// - Returns: One line per name: `allowed <path> (sha256:<hex>)`, `disallowed <path>` or
    ///   `not listed: <path>`.
    /// - Throws: ``AllowListError`` for a file that cannot be used; `VaultIOError.Code.unreadableInput`
    ///   for an executable that cannot be read; what `resolve` throws; the file system's errors.
    package static func update(
        at path: String,
        allow: [String],
        disallow: [String],
        resolve: (String) throws -> String
    ) throws -> String {
        var list = try ExecutablePolicy(path: path).list
        var report = ""
        for name in allow {
            let executable = try resolve(name)
            let fd = open(executable, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw VaultIOError(.unreadableInput, path: executable, reason: "cannot read \(executable)")
            }
            defer { close(fd) }
            guard let digest = ExecutableAllowList.digest(ofFileAt: fd) else {
                throw VaultIOError(.unreadableInput, path: executable, reason: "cannot read \(executable)")
            }
            list.allow(path: executable, digest: digest)
            report += "allowed \(executable) (sha256:\(ExecutableAllowList.hex(digest)))\n"
        }
        for name in disallow {
            let executable = (try? resolve(name)) ?? name
            report += list.disallow(path: executable) ? "disallowed \(executable)\n" : "not listed: \(executable)\n"
        }
        try FileManager.default.createDirectory(
            atPath: String(path[..<path.lastIndex(of: "/")!]),
            withIntermediateDirectories: true
        )
        try DurableFile.write(at: path, contents: Array(list.text.utf8), mode: 0o600)
        return report
    }
}
