// vaulttool: turning errors into one sentence and an exit status.

import VaultFormat

/// Prints `error` to stderr as one sentence and returns its exit status.
///
/// Spec: Spec/cli.md, "Exit status".
func report(_ error: any Error) -> Int32 {
    if let code = error as? ExitCode { return code.rawValue }
    let (message, exitCode) = describe(error)
    Output.err("Error: \(message)\n")
    return exitCode.rawValue
}

/// The sentence and exit status for an error.
func describe(_ error: any Error) -> (String, ExitCode) {
    switch error {
    case let error as ToolError:
        return (error.message, error.exitCode)
    case let error as VaultFormatError:
        return describe(error)
    default:
        return ("\(error)", .failure)
    }
}

func describe(_ error: VaultFormatError) -> (String, ExitCode) {
    switch error.code {
    case .wrongCredential:
        return ("wrong password or key file", .wrongCredential)
    case .unsupportedVersion, .unsupportedFeature:
        return ("\(error.reason); upgrade vaulttool", .unsupported)
    case .notAVault:
        return ("this file is not a vault", .damaged)
    case .kdfRejected:
        return ("the vault's key-derivation parameters are refused: \(error.reason)", .damaged)
    case .truncated, .structure, .headerCorrupt, .headerAuthentication, .indexCorrupt, .recordCorrupt:
        return ("the vault is damaged or was tampered with: \(error.reason); restore it from a backup", .damaged)
    case .foreignDevice:
        return ("\(error.reason)", .failure)
    case .limit, .invalidParameter:
        return (error.reason, .failure)
    default:
        return (error.description, .failure)
    }
}
