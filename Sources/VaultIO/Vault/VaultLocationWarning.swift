// vault: warnings about where a vault lives (a directory that other users can write).

import Glibc

/// Something about a vault's location that weakens it, for the caller to show.
///
/// The library never prints: ``Vault/locationWarnings`` returns these, and a tool decides
/// where they go (`vaulttool` writes them to stderr).
///
/// Spec: Spec/library-semantics.md, "Write lock file".
public struct VaultLocationWarning: Sendable, Equatable, CustomStringConvertible {
    /// The kind of warning. New kinds may be added in minor releases.
    public struct Kind: Hashable, Sendable {
        /// The stable name of the kind.
        public let name: String
        private init(_ name: String) { self.name = name }
        /// The vault's directory is writable by its group or by every user.
        public static let sharedDirectory = Kind("sharedDirectory")
    }

    /// What is wrong.
    public let kind: Kind
    /// The directory or file concerned.
    public let path: String
    /// The directory's permission bits.
    public let permissions: mode_t

    /// For example: `the vault's directory '/tmp' (mode 1777) is writable by other users, ...`.
    public var description: String {
        let who = permissions & 0o002 != 0 ? "every user" : "its group"
        return "the vault's directory '\(path)' (mode \(String(permissions, radix: 8))) is writable by \(who): "
            + "another user can create the vault's lock or temporary files there first and block or disturb "
            + "writes; keep vaults in a directory that only you can write"
    }
}

extension Vault {
    /// Warnings about the vault's location: today, a directory that its group or every user
    /// can write (`/tmp`, mode `1777`). Empty when there is nothing to say or the directory
    /// cannot be examined.
    public var locationWarnings: [VaultLocationWarning] {
        VaultLocationWarning.check(directory: location.directory)
    }
}

extension VaultLocationWarning {
    /// The warnings for a vault in `directory`.
    static func check(directory: String) -> [VaultLocationWarning] {
        guard let descriptor = try? FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY) else { return [] }
        defer { try? descriptor.close() }
        guard let status = try? descriptor.status(), status.permissions & 0o022 != 0 else { return [] }
        return [VaultLocationWarning(kind: .sharedDirectory, path: directory, permissions: status.permissions)]
    }
}
