// vaulttool: opening vaults for reading and writing, with progress and the lock timeout.

import FoundationEssentials
import Glibc
import VaultIO

/// How commands open vaults.
enum VaultAccess {
    /// The configuration for writes: the lock timeout comes from `VAULTTOOL_LOCK_TIMEOUT` (seconds).
    ///
    /// Spec: Spec/cli.md, "Environment".
    static func configuration(kdf: KDFParameters = .default) throws -> VaultConfiguration {
        var configuration = VaultConfiguration(kdf: kdf)
        if let text = environmentValue("VAULTTOOL_LOCK_TIMEOUT"), !text.isEmpty {
            guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
                throw ToolError("VAULTTOOL_LOCK_TIMEOUT must be a number of seconds from 0 to 3600", exitCode: .usage)
            }
            configuration.lockTimeout = .milliseconds(Int(seconds * 1000))
        }
        return configuration
    }

    /// Opens the newest generation of `path` read-only (one key derivation, no lock).
    ///
    /// A file older than the generation seen before on this account is read, with a warning on
    /// stderr (Spec/cli.md, "Rollback"); the record is raised when the file is newer.
    static func snapshot(_ path: String, credentials: Credentials) throws -> VaultSnapshot {
        let reader = try VaultFileReader(path: path)
        let opened = try Progress.run("Unlocking \(path)") { try reader.open(with: credentials) }
        return try observed(opened, at: path)
    }

    /// Compares an opened snapshot with the rollback record, warns when it is older, and
    /// returns the snapshot to read (Spec/rollback.md).
    static func observed(_ opened: VaultSnapshot, at path: String) throws -> VaultSnapshot {
        if opened.skippedIncompleteCommit {
            // Format 3, R3-SLT-4: said on every read, never an error (verify fails on it).
            Output.err(
                "Warning: the newest commit of \(path) is damaged or did not complete; generation "
                    + "\(opened.header.generation), the commit before it, is read ('vaulttool verify' says more)\n"
            )
        }
        do {
            let (snapshot, finding) = try RollbackGuard(.standard).observeNewest(opened, at: path)
            if let finding { RollbackOption.warn(path: path, finding) }
            return snapshot
        } catch let error as VaultIOError where error.code == .system {
            // A state directory that cannot be written (a read-only home) must not stop a read;
            // writes, which the check protects, still fail on it.
            Output.err("Warning: the rollback state cannot be used (\(describe(error).0)); rollback is not checked.\n")
            return opened
        }
    }

    /// Opens `path` for writing with the agent's keys or with credentials. A rolled-back file
    /// opens (with a warning), but writes to it fail with ``VaultIOError/Code/rolledBack`` unless
    /// `acceptRollback`.
    static func vault(_ path: String, _ opener: VaultOpening, acceptRollback: Bool = false) throws -> Vault {
        var configuration = try configuration()
        configuration.rollbackPolicy = acceptRollback ? .accept : .allowReads
        switch opener {
        case .agent(let keys, _):
            return try Vault(path: path, keys: keys, configuration: configuration)
        case .credentials(let credentials):
            return try Progress.run("Unlocking \(path)") {
                try Vault(path: path, credentials: credentials, configuration: configuration)
            }
        }
    }

    /// Runs a write transaction, showing progress while it runs.
    ///
    /// Warnings about the vault's location (a directory others can write) go to stderr first.
    static func write<T>(_ vault: Vault, _ body: (inout VaultTransaction) throws -> T) throws -> T {
        warnAboutLocation(of: vault)
        return try Progress.run("Writing \(vault.path)") { try vault.write(body) }
    }

    /// Prints each of the library's location warnings on stderr as `Warning: …`.
    ///
    /// Spec: Spec/cli.md, "Lock file and shared directories".
    static func warnAboutLocation(of vault: Vault) {
        for warning in vault.locationWarnings { Output.err("Warning: \(warning)\n") }
    }
}
