// vaulttool: which vault a command that takes no <vault> argument opens.

import FoundationEssentials
import Glibc
import VaultIO

/// `--vault <path>`, else `VAULTTOOL_VAULT`, else the standard per-user vault: the vault of the
/// commands that run other programs (`credential-helper`, `run`, `inject`, `credential-server`).
///
/// Spec: Spec/cli.md, "credential-helper" (vault location).
enum VaultLocation {
    /// `--vault <path>`, declared once for every command that takes it.
    static let option = Option(
        "--vault",
        valueName: "path",
        help: "The vault file (default: $VAULTTOOL_VAULT, else the standard vault).",
        completion: .files
    )

    /// The path to open, and whether it is the standard vault (which some commands create).
    ///
    /// - Throws: a usage error when nothing names a vault and there is no home directory.
    static func path(_ given: String?) throws -> (path: String, isStandard: Bool) {
        if let vault = given ?? environmentValue("VAULTTOOL_VAULT"), !vault.isEmpty {
            return (vault, vault == Vault.standardPath)
        }
        guard let standard = Vault.standardPath else {
            throw ToolError("this process has no home directory; set VAULTTOOL_VAULT or pass --vault", exitCode: .usage)
        }
        return (standard, true)
    }

    /// The newest generation of the vault `given` names (as ``path(_:)``), opened as `get` opens
    /// a vault; on the standard vault with no credential named, with this user's device secret
    /// when it exists, as the credential helpers and `Keychain.standard` open it.
    static func snapshot(_ given: String?, _ options: CredentialOptions) throws -> VaultSnapshot {
        let (path, isStandard) = try path(given)
        let options = isStandard ? options.withUsersDeviceSecret ?? options : options
        return try VaultAccess.snapshot(path, options)
    }
}
