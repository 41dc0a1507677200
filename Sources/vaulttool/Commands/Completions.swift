// vaulttool completions: shell completion scripts.

import Foundation

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
    static let options: [OptionSpec] = []
    static let arguments = [ArgumentSpec(name: "shell", help: "bash or zsh.")]

    let shell: String

    init(_ parsed: ParsedArguments) throws {
        shell = parsed.positional(0)!
        guard shell == "bash" || shell == "zsh" else { throw UsageError("Unknown shell '\(shell)'; use bash or zsh") }
    }

    func run() throws {
        Output.out(shell == "bash" ? Self.bash() : Self.zsh())
    }

    static func words(_ command: any Command.Type) -> String {
        (command.options.flatMap(\.names) + ["--help"]).joined(separator: " ")
    }

    static func bash() -> String {
        let names = VaultTool.commands.map { $0.configuration.commandName } + ["help"]
        var cases = ""
        for command in VaultTool.commands {
            let names = ([command.configuration.commandName] + command.configuration.aliases).joined(separator: "|")
            cases += "        \(names)) opts=\"\(words(command))\" ;;\n"
        }
        return """
            # bash completion for vaulttool
            _vaulttool() {
                local cur prev opts
                cur="${COMP_WORDS[COMP_CWORD]}"
                prev="${COMP_WORDS[COMP_CWORD-1]}"
                if [[ $COMP_CWORD -eq 1 ]]; then
                    COMPREPLY=($(compgen -W "\(names.joined(separator: " ")) --help --version" -- "$cur"))
                    return
                fi
                case "$prev" in
                    --password-file|--key-file|--add-key-file|--generate-key-file|--device-secret-file|--secret-file|--output|-o|--vault)
                        COMPREPLY=($(compgen -f -- "$cur")); return ;;
                    --kdf) COMPREPLY=($(compgen -W "interactive moderate sensitive" -- "$cur")); return ;;
                    --from) COMPREPLY=($(compgen -W "\(Importers.names.joined(separator: " "))" -- "$cur")); return ;;
                esac
                case "${COMP_WORDS[1]}" in
            \(cases)        completions) opts="bash zsh" ;;
                    *) opts="" ;;
                esac
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
                else
                    COMPREPLY=($(compgen -f -- "$cur"))
                fi
            }
            complete -F _vaulttool vaulttool

            """
    }

    static func zsh() -> String {
        var subcommands = ""
        var cases = ""
        for command in VaultTool.commands {
            let abstract = command.configuration.abstract.replacingOccurrences(of: "'", with: "'\\''")
            subcommands += "        '\(command.configuration.commandName):\(abstract)'\n"
            let specs = command.options.map { option -> String in
                let help = option.help.replacingOccurrences(of: "'", with: "'\\''")
                    .replacingOccurrences(of: "[", with: "(").replacingOccurrences(of: "]", with: ")")
                let value = option.valueName.map { ":\($0):_files" } ?? ""
                return "'\(option.names[0])[\(help)]\(value)'"
            }
            let names = ([command.configuration.commandName] + command.configuration.aliases).joined(separator: "|")
            cases += "        (\(names)) _arguments \(specs.joined(separator: " ")) '*:file:_files' ;;\n"
        }
        return """
            #compdef vaulttool
            # zsh completion for vaulttool
            _vaulttool() {
                local -a subcommands
                subcommands=(
            \(subcommands)    )
                if (( CURRENT == 2 )); then
                    _describe 'subcommand' subcommands
                    return
                fi
                case "${words[2]}" in
            \(cases)        (completions) _values 'shell' bash zsh ;;
                esac
            }
            _vaulttool "$@"

            """
    }
}
