// vaulttool: help text laid out the way swift-argument-parser lays it out.

/// Renders `--help` and usage lines.
enum Help {
    static let helpOption = OptionSpec(names: ["--help", "-h"], valueName: nil, help: "Show help information.")

    /// `vaulttool inspect [--json] <path>`; past 80 columns the options collapse to
    /// `[<options>]`, as swift-argument-parser does.
    static func usage(_ command: any Command.Type) -> String {
        let head = ["vaulttool", command.configuration.commandName]
        var options = [String]()
        for option in command.options {
            let name = option.names[0]
            let shown = option.valueName.map { "\(name) <\($0)>" } ?? name
            options.append(option.repeats ? "[\(shown) ...]" : "[\(shown)]")
        }
        let arguments = command.arguments.map {
            ($0.passthrough ? "-- " : "")
                + ($0.repeats && $0.optional
                    ? "[<\($0.name)> ...]"
                    : ($0.optional ? "[<\($0.name)>]" : "<\($0.name)>") + ($0.repeats ? " ..." : ""))
        }
        let full = (head + options + arguments).joined(separator: " ")
        if full.count <= 80 { return full }
        return (head + ["[<options>]"] + arguments).joined(separator: " ")
    }

    /// The full `--help` text of a command.
    static func text(_ command: any Command.Type) -> String {
        let configuration = command.configuration
        var out = "OVERVIEW: \(configuration.abstract)\n"
        if !configuration.discussion.isEmpty { out += "\n\(configuration.discussion)\n" }
        out += "\nUSAGE: \(usage(command))\n"
        if !configuration.aliases.isEmpty {
            out += "\nALIASES: \(configuration.aliases.joined(separator: ", "))\n"
        }
        if !command.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in command.arguments { out += row("<\(argument.name)>", argument.help) }
        }
        out += "\nOPTIONS:\n"
        for option in command.options + [helpOption] {
            let names = option.names.sorted { $0.count < $1.count }.joined(separator: ", ")
            out += row(option.valueName.map { "\(names) <\($0)>" } ?? names, option.help)
        }
        if let examples = Examples.byCommand[configuration.commandName], !examples.isEmpty {
            out += "\nEXAMPLES:\n"
            for example in examples { out += "  \(example)\n" }
        }
        return out
    }

    /// The exit statuses, for the top-level help. Spec: Spec/cli.md, "Exit status".
    static let exitStatuses: [(ExitCode, String)] = [
        (.success, "Success."),
        (.failure, "Any other failure (the vault exists, several items match, duplicates, ...)."),
        (.notFound, "The item or keyslot asked for does not exist."),
        (.wrongCredential, "No keyslot opens with the credential given."),
        (.damaged, "The file is damaged, tampered with, not a vault, or older than one seen before."),
        (.unsupported, "The file needs a newer vaulttool."),
        (.busy, "Another program holds the write lock, or changed the vault meanwhile."),
        (.ioFailure, "A file-system call failed."),
        (.usage, "The command line is wrong."),
    ]

    /// One aligned row: two spaces, the label padded to 24 columns, the help.
    static func row(_ label: String, _ help: String) -> String {
        let indent = "  "
        if label.count > 22 { return indent + label + "\n" + String(repeating: " ", count: 26) + help + "\n" }
        return indent + label + String(repeating: " ", count: 24 - label.count) + help + "\n"
    }

    /// The top-level help: every command with its abstract.
    static func root(_ commands: [any Command.Type], version: String) -> String {
        var out = "OVERVIEW: A portable, file-backed keychain (vault \(version)).\n\n"
        out += "USAGE: vaulttool <subcommand>\n\n"
        out += "OPTIONS:\n"
        out += row("--version", "Show the version.")
        out += row("-h, --help", "Show help information.")
        out += "\nSUBCOMMANDS:\n"
        for command in commands {
            let names = [command.configuration.commandName] + command.configuration.aliases
            out += row(names.joined(separator: ", "), command.configuration.abstract)
        }
        out += row("help", VaultTool.helpAbstract)
        out += "\nEXIT STATUS:\n"
        for (code, meaning) in exitStatuses { out += row("\(code.rawValue)", meaning) }
        out += "\n  See 'vaulttool help <subcommand>' for detailed help.\n"
        return out
    }
}
