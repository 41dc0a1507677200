// vaulttool: typed keys that declare an option or argument once and read it back with its type.

/// A flag (`--json`): declared once, it gives both the ``OptionSpec`` that help, completions
/// and the parser use, and the `Bool` read back with `parsed[key]`.
///
/// ```swift
/// static let json = Flag("--json", help: "Print machine-readable output.")
/// static let options = [json.spec]
/// json = parsed[Self.json]
/// ```
struct Flag {
    let spec: OptionSpec

    /// - Parameter shortName: Another spelling, such as `-n`.
    init(_ name: String, shortName: String? = nil, help: String) {
        spec = OptionSpec(names: [name] + (shortName.map { [$0] } ?? []), valueName: nil, help: help)
    }

    /// The long name (`--json`), for messages.
    var name: String { spec.names[0] }
}

/// An option that takes a value (`--output <file>`); `parsed[key]` is its last value, or `nil`.
struct Option {
    let spec: OptionSpec

    /// - Parameter shortName: Another spelling, such as `-o`.
    init(
        _ name: String,
        shortName: String? = nil,
        valueName: String,
        help: String,
        completion: Completion = .automatic
    ) {
        spec = OptionSpec(
            names: [name] + (shortName.map { [$0] } ?? []),
            valueName: valueName,
            help: help,
            completion: completion
        )
    }

    /// The long name (`--output`), for messages.
    var name: String { spec.names[0] }
}

/// An option that may repeat (`--keep-password-file <file> ...`); `parsed[key]` is every value in order.
struct RepeatedOption {
    let spec: OptionSpec

    init(_ name: String, valueName: String, help: String, completion: Completion = .automatic) {
        spec = OptionSpec(names: [name], valueName: valueName, help: help, repeats: true, completion: completion)
    }

    /// The long name, for messages.
    var name: String { spec.names[0] }
}

/// A required positional argument; `parsed[key]` is a `String`, since the parser has already
/// refused a command line without it.
struct Argument {
    let spec: ArgumentSpec

    init(_ name: String, help: String, completion: Completion = .automatic) {
        spec = ArgumentSpec(name: name, help: help, completion: completion)
    }

    /// The vault path that most commands take first: `<vault>`, "The vault file.".
    static let vault = Argument("vault", help: "The vault file.")
}

/// A positional argument that may be left out; `parsed[key]` is `nil` when it was.
struct OptionalArgument {
    let spec: ArgumentSpec

    init(_ name: String, help: String, completion: Completion = .automatic) {
        spec = ArgumentSpec(name: name, help: help, optional: true, completion: completion)
    }
}

/// The last argument, taking every remaining word (`<name> ...`); `parsed[key]` is the words in order.
struct RemainingArguments {
    let spec: ArgumentSpec

    init(_ name: String, help: String, optional: Bool = false, completion: Completion = .automatic) {
        spec = ArgumentSpec(name: name, help: help, optional: optional, completion: completion, repeats: true)
    }
}

// MARK: - Reading parsed values

extension ParsedArguments {
    /// Whether the option declared by `spec` was given (for code that walks a group's specs).
    func isGiven(_ spec: OptionSpec) -> Bool { !occurrences(of: spec).isEmpty }

    /// Whether the flag was given.
    subscript(_ key: Flag) -> Bool { !occurrences(of: key.spec).isEmpty }

    /// The option's last value, or `nil` when it was not given.
    subscript(_ key: Option) -> String? { occurrences(of: key.spec).last }

    /// Every value of the repeatable option, in the order given.
    subscript(_ key: RepeatedOption) -> [String] { occurrences(of: key.spec) }

    /// The required argument. The parser has checked that it is there; reading an argument the
    /// command did not declare is a programming error.
    subscript(_ key: Argument) -> String {
        guard let index = slot(of: key.spec) else {
            preconditionFailure("argument <\(key.spec.name)> missing after parsing")
        }
        return positionals[index]
    }

    /// The optional argument, or `nil` when it was left out.
    subscript(_ key: OptionalArgument) -> String? {
        slot(of: key.spec).map { positionals[$0] }
    }

    /// The words taken by the last, repeating argument.
    subscript(_ key: RemainingArguments) -> [String] {
        slot(of: key.spec).map { Array(positionals[$0...]) } ?? []
    }

    /// Where `spec`'s word sits among the positionals, or `nil` when it was left out.
    ///
    /// Required arguments are always filled; the words left over fill the optional ones from the
    /// left, so `[<source>] <vault>` reads one word as `<vault>` and two as `<source> <vault>`.
    private func slot(of spec: ArgumentSpec) -> Int? {
        var spare = positionals.count - command.arguments.filter { !$0.optional && !$0.repeats }.count
        var next = 0
        for argument in command.arguments {
            if argument.repeats {
                guard argument.name == spec.name else { break }
                return next < positionals.count ? next : nil
            }
            let given = !argument.optional || spare > 0
            if argument.optional && given { spare -= 1 }
            if argument.name == spec.name { return given && next < positionals.count ? next : nil }
            if given { next += 1 }
        }
        preconditionFailure("<\(spec.name)> is not an argument of '\(command.configuration.commandName)'")
    }
}
