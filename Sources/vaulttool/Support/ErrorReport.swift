// vaulttool: turning errors into one sentence and an exit status.

import Foundation
import VaultFormat
import VaultIO

/// Prints `error` to stderr as one sentence and returns its exit status.
///
/// Spec: Spec/cli.md, "Exit status".
func report(_ error: any Error) -> Int32 {
    if let code = error as? ExitCode { return code.rawValue }
    let (message, exitCode) = describe(error)
    Output.err(errorLine(message))
    return exitCode.rawValue
}

/// `Error: <message>` in the one style of every error vaulttool prints, usage errors
/// included: the sentence starts with a capital letter and has no final period
/// (`Error: Unknown option '--foo'`, `Error: Wrong password or key file`).
///
/// Spec: Spec/cli.md, "Error messages".
func errorLine(_ message: String) -> String {
    var text = message
    while text.hasSuffix(".") { text.removeLast() }
    if let first = text.first, first.isLowercase { text = first.uppercased() + text.dropFirst() }
    return "Error: \(text)\n"
}

/// The sentence and exit status for an error.
func describe(_ error: any Error) -> (String, ExitCode) {
    switch error {
    case let error as ToolError:
        return (error.message, error.exitCode)
    case let error as VaultFormatError:
        return describe(error)
    case let error as VaultIOError:
        return describe(error)
    default:
        return ("\(error)", .failure)
    }
}

func describe(_ error: VaultFormatError) -> (String, ExitCode) {
    switch error.code {
    case .wrongCredential:
        return ("wrong password or key file", .wrongCredential)
    case .unsupportedVersion:
        if let range = error.reason.range(of: #"format version \d+"#, options: .regularExpression) {
            let major = error.reason[range].split(separator: " ").last!
            return ("vault format \(major) needs a newer vaulttool", .unsupported)
        }
        return ("\(error.reason); install a newer vaulttool", .unsupported)
    case .unsupportedFeature:
        return ("\(error.reason); install a newer vaulttool", .unsupported)
    case .notAVault:
        return ("this file is not a vault", .damaged)
    case .kdfRejected:
        return ("the key-derivation parameters are refused: \(error.reason)", .damaged)
    case .truncated, .structure, .headerCorrupt, .headerAuthentication, .indexCorrupt, .recordCorrupt:
        return ("the vault is damaged or was tampered with: \(error.reason); restore it from a backup", .damaged)
    case .deviceSecretRequired:
        return (
            "\(error.reason); pass --device-secret-file or set VAULTTOOL_DEVICE_SECRET_FILE", .failure
        )
    case .foreignDevice:
        return ("\(error.reason); give this device's secret with --device-secret-file", .failure)
    case .keyUnavailable:
        return ("\(error.reason); open the vault with its password or key file", .failure)
    case .limit, .invalidParameter, .cryptoFailure:
        return (error.reason, .failure)
    default:
        return (error.description, .failure)
    }
}

func describe(_ error: VaultIOError) -> (String, ExitCode) {
    switch error.code {
    case .lockTimeout:
        return (
            "another program is writing the vault (\(error.reason.isEmpty ? "lock timeout" : error.reason)); run again later",
            .busy
        )
    case .conflict:
        return ("vault was changed by another program; run again", .busy)
    case .system:
        var text = "\(error.operation.isEmpty ? "file operation" : error.operation) failed"
        if !error.path.isEmpty { text += " on '\(error.path)'" }
        if let errno = error.errno { text += ": \(errno) (errno \(errno.rawValue))" }
        return (text, .ioFailure)
    case .alreadyExists:
        return ("a file already exists at '\(error.path)'; choose another path or remove it first", .failure)
    case .invalidPath:
        return ("'\(error.path)' cannot be a vault: \(error.reason)", .failure)
    case .invalidDeviceSecret:
        return ("the device secret '\(error.path)' must be exactly 32 bytes", .failure)
    case .credentialsRequired:
        return ("vault was changed by another program; run again", .busy)
    default:
        return (error.description, .failure)
    }
}
