// vaulttool completions: shell completion scripts.

import FoundationEssentials
import Glibc

/// `vaulttool completions bash|zsh`.
struct Completions: Command {
    static let configuration = CommandConfiguration(
        commandName: "completions",
        abstract: "Print a shell completion script (bash or zsh).",
        discussion: """
            bash: eval "$(vaulttool completions bash)" in ~/.bashrc.
            zsh:  vaulttool completions zsh > "${fpath[1]}/_vaulttool".
            """
    )
    @Argument("shell", help: "bash or zsh.", completion: .values(["bash", "zsh"])) var shell: String

    func validate() throws {
        guard shell == "bash" || shell == "zsh" else { throw UsageError("Unknown shell '\(shell)'; use bash or zsh") }
    }

    func run() throws {
        Output.out(shell == "bash" ? Self.bash() : Self.zsh())
    }

    /// A command as the scripts see it: its words, options and arguments.
    struct Entry {
        var names: [String]
        var abstract: String
        var options: [OptionSpec]
        var arguments: [ArgumentSpec]
    }

    /// Every command, and `help`, from the declarations.
    static var entries: [Entry] {
        VaultTool.commands.map { command in
            Entry(
                names: [command.configuration.commandName] + command.configuration.aliases,
                abstract: command.configuration.abstract,
                options: command.options + [Help.helpOption],
                arguments: command.arguments
            )
        } + [
            Entry(
                names: ["help"],
                abstract: VaultTool.helpAbstract,
                options: [],
                arguments: [ArgumentSpec(name: "subcommand", help: "", optional: true, completion: .subcommands)]
            )
        ]
    }

    /// What `completion` means for an option's value (`automatic`: files only for `<file>`).
    static func resolved(_ option: OptionSpec) -> Completion {
        guard option.completion == .automatic else { return option.completion }
        return option.valueName == "file" ? .files : .none
    }

    /// What `completion` means for an argument (`automatic`: files).
    static func resolved(_ argument: ArgumentSpec) -> Completion {
        argument.completion == .automatic ? .files : argument.completion
    }

    /// Every subcommand word, aliases included.
    static var subcommandWords: [String] { entries.flatMap(\.names) }

    // MARK: - bash

    /// The bash `compgen` arguments for a completion, or `nil` for none.
    static func bashWords(_ completion: Completion) -> String {
        switch completion {
        case .automatic, .files: return "@files"
        case .none: return "@none"
        case .subcommands: return subcommandWords.joined(separator: " ")
        case .values(let words): return words.joined(separator: " ")
        }
    }

    static func bash() -> String {
        var cases = ""
        for entry in entries {
            var valued = [String: [String]]()  // compgen words → option names
            var order = [String]()
            for option in entry.options where option.valueName != nil {
                let words = bashWords(resolved(option))
                if valued[words] == nil { order.append(words) }
                valued[words, default: []] += option.names
            }
            cases += "        \(entry.names.joined(separator: "|")))\n"
            let takesValue = entry.options.filter { $0.valueName != nil }.flatMap(\.names)
            cases += "            valued=\"\(takesValue.joined(separator: " "))\"\n"
            if !order.isEmpty {
                cases += "            case \"$prev\" in\n"
                for words in order {
                    cases +=
                        "                \(valued[words]!.joined(separator: "|"))) _vaulttool_reply \"\(words)\"; return ;;\n"
                }
                cases += "            esac\n"
            }
            cases += "            opts=\"\(entry.options.flatMap(\.names).joined(separator: " "))\"\n"
            let arguments = entry.arguments.map { "\"\(bashWords(resolved($0)))\"" }
            cases += "            args=(\(arguments.joined(separator: " ")))\n"
            if let last = entry.arguments.last, last.repeats {
                cases += "            rest=\"\(bashWords(resolved(last)))\"\n"
            }
            cases += "            ;;\n"
        }
        return """
            # bash completion for vaulttool (generated from the command declarations)
            _vaulttool_reply() {
                case "$1" in
                    @files) COMPREPLY=($(compgen -f -- "$cur")) ;;
                    @none) COMPREPLY=() ;;
                    *) COMPREPLY=($(compgen -W "$1" -- "$cur")) ;;
                esac
            }
            _vaulttool() {
                local cur prev opts valued rest i n=0 word
                local -a args
                cur="${COMP_WORDS[COMP_CWORD]}"
                prev="${COMP_WORDS[COMP_CWORD-1]}"
                if [[ $COMP_CWORD -eq 1 ]]; then
                    COMPREPLY=($(compgen -W "\(subcommandWords.joined(separator: " ")) --help --version" -- "$cur"))
                    return
                fi
                case "${COMP_WORDS[1]}" in
            \(cases)        *) return ;;
                esac
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
                    return
                fi
                # Which argument is this? Count the words before it that are not options or option values.
                for (( i = 2; i < COMP_CWORD; i++ )); do
                    word="${COMP_WORDS[i]}"
                    if [[ " $valued " == *" $word "* ]]; then
                        (( i++ ))
                    elif [[ "$word" != -* ]]; then
                        (( n++ ))
                    fi
                done
                if (( n < ${#args[@]} )); then
                    _vaulttool_reply "${args[n]}"
                elif [[ -n "$rest" ]]; then
                    _vaulttool_reply "$rest"
                else
                    COMPREPLY=()
                fi
            }
            complete -F _vaulttool vaulttool

            """
    }

    // MARK: - zsh

    /// Quotes `text` for a single-quoted zsh word.
    static func zshQuoted(_ text: String) -> String {
        text.replacing("'", with: "'\\''")
    }

    /// The `_arguments` action for a completion.
    static func zshAction(_ completion: Completion) -> String {
        switch completion {
        case .automatic, .files: return "_files"
        case .none: return " "
        case .subcommands: return "(\(subcommandWords.joined(separator: " ")))"
        case .values(let words): return "(\(words.joined(separator: " ")))"
        }
    }

    static func zsh() -> String {
        var subcommands = ""
        var cases = ""
        for entry in entries {
            let abstract = zshQuoted(entry.abstract.replacing(":", with: "\\:"))
            for name in entry.names { subcommands += "        '\(name):\(abstract)'\n" }
            var specs = [String]()
            for option in entry.options {
                let help = zshQuoted(option.help).replacing("[", with: "(")
                    .replacing("]", with: ")")
                let value = option.valueName.map { ":\($0):\(zshAction(resolved(option)))" } ?? ""
                let repeats = option.repeats ? "*" : ""
                for name in option.names { specs.append("'\(repeats)\(name)[\(help)]\(value)'") }
            }
            for (index, argument) in entry.arguments.enumerated() {
                let colon = argument.optional ? "::" : ":"
                let position = argument.repeats ? "*:" : "\(index + 1)\(colon)"
                specs.append("'\(position)\(argument.name):\(zshAction(resolved(argument)))'")
            }
            cases += "        (\(entry.names.joined(separator: "|")))\n"
            cases += "            _arguments -s \\\n"
            cases += specs.map { "                \($0)" }.joined(separator: " \\\n") + " ;;\n"
        }
        return """
            #compdef vaulttool
            # zsh completion for vaulttool (generated from the command declarations)
            _vaulttool() {
                local -a subcommands
                subcommands=(
            \(subcommands)    )
                if (( CURRENT == 2 )); then
                    _describe 'subcommand' subcommands
                    return
                fi
                local curcontext="$curcontext"
                words=("${(@)words[2,-1]}")
                (( CURRENT-- ))
                case "${words[1]}" in
            \(cases)    esac
            }
            _vaulttool "$@"

            """
    }
}
