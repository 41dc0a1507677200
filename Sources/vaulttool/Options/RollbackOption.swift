// vaulttool: --accept-rollback, and what the tool says about a vault older than one seen before.

import VaultIO

/// The option of the commands that write, and the messages about a rolled-back vault.
///
/// Spec: Spec/cli.md, "Rollback".
enum RollbackOption {
    static let flag = Flag(
        "--accept-rollback",
        help: "Write even when the vault is older than one seen before here, and record it as the newest."
    )
    static var name: String { flag.name }

    static let specs = [flag.spec]

    /// The warning a read prints before it goes on.
    static func warn(path: String, _ finding: RollbackFinding) {
        Output.err(
            "Warning: '\(path)' may have been rolled back: \(finding); an older copy may have been put back. "
                + "Reading it anyway; writes are refused without \(name).\n"
        )
    }

    /// The error of a refused write.
    static func refusal(_ error: VaultIOError) -> String {
        let what = error.rollback.map { "\($0)" } ?? error.reason
        return "'\(error.path)' was rolled back: \(what); an older copy may have been put back. "
            + "Nothing was written; pass \(name) to write to it anyway"
    }
}
