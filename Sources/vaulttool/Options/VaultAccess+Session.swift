// vaulttool: opening a vault for a command that changes its keyslots (passwd, migrate).

import VaultIO

extension VaultAccess {
    /// Opens `path` with one key derivation and keeps the opened keyslot's key for the command
    /// (``CredentialSession``). A rolled-back file opens with a warning; writes to it fail with
    /// ``VaultIOError/Code/rolledBack`` unless `acceptRollback`.
    static func session(_ path: String, credentials: Credentials, acceptRollback: Bool) throws -> CredentialSession {
        var configuration = try configuration()
        configuration.rollbackPolicy = acceptRollback ? .accept : .allowReads
        let session = try Progress.run("Unlocking \(path)") {
            try CredentialSession(path: path, credentials: credentials, configuration: configuration)
        }
        if let finding = session.vault.rollbackFinding { RollbackOption.warn(path: path, finding) }
        return session
    }
}
