// vaulttool: turning errors into one sentence and an exit status.

import FoundationEssentials
import Glibc
import VaultDelivery
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
    case let damage as ItemDamage:
        return (
            "the vault is damaged or was tampered with: \(DamageReport.line(damage)); "
                + "'list --salvage' and 'export --salvage' read the other items, "
                + "'rm --id \(damage.entry.itemID)' removes this one (see 'vaulttool help backup')",
            .damaged
        )
    case let error as VaultFormatError:
        return describe(error)
    case let error as VaultIOError:
        return describe(error)
    case let error as VaultDeliveryError:
        return describe(error)
    default:
        return ("\(error)", .failure)
    }
}

/// A reference that does not resolve is the library's sentence (what was being resolved), then
/// the reason of the underlying error, with that error's status.
func describe(_ error: VaultDeliveryError) -> (String, ExitCode) {
    switch error.code {
    case .unresolvedReference:
        if let usage = error.underlying as? UsageError { return ("\(error.reason): \(usage.message)", .usage) }
        let (reason, exitCode) = error.underlying.map(describe) ?? ("", .failure)
        return ("\(error.reason): \(reason)", exitCode)
    case .invalidArgument, .invalidInput: return (error.reason, .usage)
    case .commandNotFound: return (error.reason, ExitCode(rawValue: 127))
    case .commandNotExecutable: return (error.reason, ExitCode(rawValue: 126))
    case .system: return (error.reason, .ioFailure)
    default: return (error.reason, .failure)
    }
}

func describe(_ error: VaultFormatError) -> (String, ExitCode) {
    switch error.code {
    case .wrongCredential:
        // The library words it (an identity that matches no recipient says so, R12-RCP-3); the
        // reason never holds a secret.
        return (error.reason.isEmpty ? "wrong password or key file" : error.reason, .wrongCredential)
    case .unsupportedVersion:
        if let version = error.formatVersion, version.major != VaultHeader.currentMajor {
            return ("vault format \(version.major) needs a newer vaulttool", .unsupported)
        }
        return ("\(error.reason); install a newer vaulttool", .unsupported)
    case .unsupportedFeature:
        return ("\(error.reason); install a newer vaulttool", .unsupported)
    case .notAVault:
        return ("this file is not a vault", .damaged)
    case .kdfRejected:
        return ("the key-derivation parameters are refused: \(error.reason)", .damaged)
    case .truncated, .structure, .headerCorrupt, .headerAuthentication, .indexCorrupt, .recordCorrupt:
        return (
            "the vault is damaged or was tampered with: \(error.reason); restore a copy made with "
                + "'vaulttool backup' (see 'vaulttool help backup')",
            .damaged
        )
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
        return ("the device secret '\(error.path)' is refused: \(error.reason)", .failure)
    case .conflict, .credentialsRequired:
        return (
            "the keys held no longer open the vault: another program re-keyed or replaced it, or its header "
                + "was altered; run the command again with the vault's credentials",
            .busy
        )
    case .rolledBack:
        return (RollbackOption.refusal(error), .damaged)
    case .rollbackStateInvalid:
        return (
            "the rollback state file '\(error.path)' cannot be used (\(error.reason)); remove it, "
                + "or pass --accept-rollback to a command that writes to record this vault again",
            .failure
        )
    case .rekeyRefused:
        return (
            "\(error.reason); give the credentials of what should stay (--key-file, --keep-password-file, "
                + "--device-secret-file), or --drop-keyslots / --drop-foreign to remove it",
            .failure
        )
    case .untrustedLockFile:
        return (error.reason, .failure)
    case .invalidInput:
        return (error.reason, .usage)
    case .keyslotNotFound:
        return (error.reason, .notFound)
    case .unreadableInput:
        return (error.reason, .ioFailure)
    case .itemNotFound:
        guard let group = error.accessGroup.map(TerminalText.escaped) else { return (error.reason, .notFound) }
        return (
            "No item matches in the default access group; an item of access group '\(group)' matches, "
                + "and a lookup that names no group never takes an item of a group with its own keys: "
                + "add --access-group '\(group)'",
            .notFound
        )
    case .ambiguousItem:
        return ("\(error.reason); narrow the selection with more attributes (see 'vaulttool list')", .failure)
    case .deviceSecretRequired:
        return (
            "\(error.reason); pass --device-secret-file or set VAULTTOOL_DEVICE_SECRET_FILE "
                + "('vaulttool device-secret init' creates one)", .wrongCredential
        )
    case .accessibilityMismatch:
        return ("\(error.reason); it was changed, possibly by someone holding only the vault's base key", .failure)
    case .agentNotStarted:
        return (error.reason, error.errno == nil ? .failure : .ioFailure)
    case .invalidReference:
        return ("the reference is not valid: \(error.reason) (see 'vaulttool inject --help')", .usage)
    case .tpm2WrongPIN, .tpm2LockedOut, .tpm2PolicyMismatch, .tpm2SealedElsewhere, .noTPM2Keyslot, .tpm2PINRequired:
        return (error.reason, .wrongCredential)  // the TPM did not yield a credential (Spec/tpm2.md L-TPM-3)
    case .tpm2Unavailable:
        return (error.reason, .ioFailure)
    case .tpm2Refused:
        return ("the TPM refused: \(error.reason)", .failure)
    default:
        return (error.description, .failure)
    }
}
