// vaulttool: a small argument parser for the Command protocol.

/// The result of parsing one command's arguments.
struct ParsedArguments {
    /// Option values by long name (`--service` → values in order given). Flags hold `""`.
    private(set) var values: [String: [String]] = [:]
    /// Positional arguments in order.
    private(set) var positionals: [String] = []
    /// The command whose declarations these were parsed against (typed keys find their
    /// argument's position there).
    let command: any Command.Type
    /// The command's arguments, read from its declarations once (each read of
    /// `Command.arguments` creates a new instance).
    let argumentSpecs: [ArgumentSpec]

    /// Every value given to the option `spec` declares, in order (`[""]` for a flag given).
    ///
    /// Declarations read their values through the typed subscripts of Options/OptionKeys.swift;
    /// this is for code that walks a group's options (``CredentialOptions/given``).
    func occurrences(of spec: OptionSpec) -> [String] { values[spec.names[0]] ?? [] }

    /// Parses `arguments` against the options and arguments of `command`.
    ///
    /// - Throws: ``UsageError`` for an unknown option, a missing value, a repeated
    ///   single option, or the wrong number of positional arguments.
    init(_ arguments: [String], for command: any Command.Type) throws {
        self.command = command
        let options = command.options
        argumentSpecs = command.arguments
        var optionsDone = false
        var rest = arguments[...]
        let passthroughStart = argumentSpecs.last?.passthrough == true ? argumentSpecs.count - 1 : nil
        while let word = rest.popFirst() {
            if optionsDone || !word.hasPrefix("-") || word == "-" {
                // The first word of a passthrough argument ends the options: the rest is another program's.
                if positionals.count == passthroughStart { optionsDone = true }
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsDone = true
                continue
            }
            var name = word
            var inline: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inline = String(word[word.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.names.contains(name) }) else {
                throw UsageError("Unknown option '\(name)'")
            }
            let key = spec.names[0]
            if values[key] != nil && !spec.repeats {
                throw UsageError("Option '\(key)' given more than once")
            }
            if spec.valueName == nil {
                guard inline == nil else { throw UsageError("Option '\(key)' takes no value") }
                values[key] = [""]
                continue
            }
            // The next word is the value, unless it is one of this command's options (as
            // swift-argument-parser decides): `--service --account x` misses a value instead of
            // naming the service `--account`. `--service=--account` still gives it.
            let isOption = { (next: String) in options.contains { $0.names.contains(next) } }
            guard let value = inline ?? rest.first.flatMap({ isOption($0) || $0 == "--" ? nil : $0 }) else {
                throw UsageError("Missing value for '\(key) <\(spec.valueName!)>'")
            }
            if inline == nil { rest.removeFirst() }
            values[key, default: []].append(value)
        }
        let required = argumentSpecs.filter { !$0.optional }.count
        if positionals.count < required {
            throw UsageError("Missing expected argument '<\(argumentSpecs[positionals.count].name)>'")
        }
        if positionals.count > argumentSpecs.count && argumentSpecs.last?.repeats != true {
            throw UsageError("Unexpected argument '\(positionals[argumentSpecs.count])'")
        }
    }

    /// The words of `arguments` that may be vaulttool's options (where `--help` is looked for):
    /// those before `--`, and for a command with a passthrough argument, before its first word.
    static func optionWords(_ arguments: [String], for command: any Command.Type) -> ArraySlice<String> {
        let declared = command.arguments
        let options = command.options
        guard declared.last?.passthrough == true else {
            return arguments.prefix { $0 != "--" }
        }
        let before = declared.count - 1
        var positionals = 0
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" { break }
            if !word.hasPrefix("-") || word == "-" {
                if positionals == before { break }
                positionals += 1
            } else if !word.contains("="),
                options.first(where: { $0.names.contains(word) })?.valueName != nil
            {
                index += 1  // the option's value
            }
            index += 1
        }
        return arguments[..<min(index, arguments.count)]
    }
}
