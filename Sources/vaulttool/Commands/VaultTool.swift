// vaulttool: dispatching to subcommands.

import CVaultTool
import Glibc
import VaultDelivery
import VaultIO

/// The tool: its commands, `--help`, `--version`, and error reporting.
enum VaultTool {
    /// The version printed by `--version`.
    static let version = "0.3.0"

    /// The abstract of the `help` pseudo-command, listed with the subcommands.
    static let helpAbstract = "Show help information for a subcommand."

    /// Every subcommand, in help order.
    static var commands: [any Command.Type] {
        [
            Create.self, Inspect.self, Verify.self, List.self, Get.self, SetItem.self, Remove.self, Passwd.self,
            Rekey.self, Migrate.self, Import.self, Export.self, Generate.self, CredentialHelper.self,
            CredentialServerCommand.self, Completions.self, BackupCommand.self, DeviceSecretCommand.self, Keygen.self,
            Recipients.self, Agent.self, Unlock.self, Lock.self,
            MergeCommand.self, GitMerge.self, GitDiff.self, GitSetup.self,
            Inject.self, Run.self, SecretService.self,
        ]
    }

    /// Runs the tool and returns its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        // Refuse core dumps and ptrace-style dumping before any key is held.
        _ = vault_disable_core_dumps()
        // No backtrace either: the runtime's would print registers and the memory they point to.
        _ = vault_install_fatal_signal_handlers()
        // A closed standard descriptor is opened on /dev/null, so that no file vaulttool opens (a
        // vault, a secret's memory file for 'run') takes descriptor 0, 1 or 2 and is read or
        // written as standard input or output by vaulttool or a child.
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) < 0 {
            _ = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
        }
        guard let first = arguments.first else {
            Output.err(Help.root(commands, version: version))
            return ExitCode.usage.rawValue
        }
        switch first {
        case "--help", "-h":
            Output.out(Help.root(commands, version: version))
            return 0
        case "--version":
            Output.out(
                "vaulttool \(version) (reads vault formats 1.0 to \(VaultHeader.currentMajor).\(VaultHeader.currentMinor), "
                    + "2.0 and 3.0; creates 3.0, or \(VaultHeader.currentMajor).\(VaultHeader.newVaultMinor) with --format; "
                    + "migrate --to writes 1.2, 2.0 or 3.0)\n"
            )
            return 0
        case "help":
            guard let name = arguments.dropFirst().first else {
                Output.out(Help.root(commands, version: version))
                return 0
            }
            guard let command = lookup(name) else { return usageError("Unknown subcommand '\(name)'", nil) }
            Output.out(Help.text(command))
            return 0
        default:
            break
        }
        guard let command = lookup(first) else { return usageError("Unknown subcommand '\(first)'", nil) }
        let rest = Array(arguments.dropFirst())
        let optionWords = ParsedArguments.optionWords(rest, for: command)
        if optionWords.contains("--help") || optionWords.contains("-h") {
            Output.out(Help.text(command))
            return 0
        }
        do {
            var instance = try command.init(try ParsedArguments(rest, for: command))
            try instance.run()
            return 0
        } catch let error as UsageError {
            return usageError(error.message, command)
        } catch let error as VaultDeliveryError where error.code == .invalidArgument {
            return usageError(error.reason, command)
        } catch {
            return report(error)
        }
    }

    static func lookup(_ name: String) -> (any Command.Type)? {
        commands.first { $0.configuration.commandName == name || $0.configuration.aliases.contains(name) }
    }

    static func usageError(_ message: String, _ command: (any Command.Type)?) -> Int32 {
        var text = errorLine(message)
        if let command {
            text += "Usage: \(Help.usage(command))\n"
            text += "  See 'vaulttool \(command.configuration.commandName) --help' for more information.\n"
        } else {
            text += "Usage: vaulttool <subcommand>\n  See 'vaulttool --help' for more information.\n"
        }
        Output.err(text)
        return ExitCode.usage.rawValue
    }
}
