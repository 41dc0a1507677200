// vaulttool: options and arguments declared once, as the properties that hold their values.

/// A command's options and arguments are its properties: each `@Flag`, `@Option`,
/// `@RepeatedOption`, `@Argument`, `@OptionalArgument`, `@RemainingArguments` and `@Group`
/// property is at once the declaration that help, completions and the parser read (in the
/// order the properties are written) and the storage of the value parsed for it, as
/// swift-argument-parser's property wrappers are. See ``Command``.
extension Command {
    static var options: [OptionSpec] { declarations(of: Self()).flatMap(\.optionSpecs) }
    static var arguments: [ArgumentSpec] { declarations(of: Self()).compactMap(\.argumentSpec) }

    init(_ parsed: ParsedArguments) throws {
        self.init()
        for declaration in declarations(of: self) { try declaration.fill(from: parsed) }
        try validate()
    }

    mutating func validate() throws {}
}

/// A set of options that several commands share (`@Group var credentials: CredentialOptions`),
/// declared once in the group's type, as swift-argument-parser's `@OptionGroup`.
protocol OptionGroup {
    /// The group's options, in help order.
    static var specs: [OptionSpec] { get }
    /// Reads the group's values.
    init(_ parsed: ParsedArguments) throws
}

/// One property's declaration, found by reflection over a command's properties.
protocol Declaration: AnyObject {
    var optionSpecs: [OptionSpec] { get }
    var argumentSpec: ArgumentSpec? { get }
    func fill(from parsed: ParsedArguments) throws
}

extension Declaration {
    var optionSpecs: [OptionSpec] { [] }
    var argumentSpec: ArgumentSpec? { nil }
}

/// The declarations among `command`'s stored properties, in the order they are written.
private func declarations(of command: Any) -> [any Declaration] {
    Mirror(reflecting: command).children.compactMap { $0.value as? any Declaration }
}

// The wrappers are classes so that the properties of a value-type command can be filled in
// place through reflection. Each is filled once, before `validate()`, and only read after:
// `@unchecked Sendable` holds.

/// A flag (`--json`); `true` when given. Also a key: `parsed[Self.json]` for a `static let`.
@propertyWrapper final class Flag: Declaration, @unchecked Sendable {
    let spec: OptionSpec
    private(set) var wrappedValue = false

    /// - Parameter shortName: Another spelling, such as `-n`.
    init(_ name: String, shortName: String? = nil, help: String) {
        spec = OptionSpec(names: [name] + (shortName.map { [$0] } ?? []), valueName: nil, help: help)
    }

    /// The long name (`--json`), for messages.
    var name: String { spec.names[0] }
    var optionSpecs: [OptionSpec] { [spec] }
    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// An option that takes a value (`--output <file>`): its last value, or `nil`.
@propertyWrapper final class Option: Declaration, @unchecked Sendable {
    let spec: OptionSpec
    private(set) var wrappedValue: String?

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

    /// A property declared as the shared option `other` (`@Option(VaultLocation.option)`).
    init(_ other: Option) { spec = other.spec }

    /// The long name (`--output`), for messages.
    var name: String { spec.names[0] }
    var optionSpecs: [OptionSpec] { [spec] }
    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// An option that may repeat (`--keep-password-file <file> ...`): every value in order.
@propertyWrapper final class RepeatedOption: Declaration, @unchecked Sendable {
    let spec: OptionSpec
    private(set) var wrappedValue: [String] = []

    init(_ name: String, valueName: String, help: String, completion: Completion = .automatic) {
        spec = OptionSpec(names: [name], valueName: valueName, help: help, repeats: true, completion: completion)
    }

    /// The long name, for messages.
    var name: String { spec.names[0] }
    var optionSpecs: [OptionSpec] { [spec] }
    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// A required positional argument; the parser has already refused a command line without it.
@propertyWrapper final class Argument: Declaration, @unchecked Sendable {
    let spec: ArgumentSpec
    private(set) var wrappedValue = ""

    init(_ name: String, help: String, completion: Completion = .automatic) {
        spec = ArgumentSpec(name: name, help: help, completion: completion)
    }

    /// A property declared as the shared argument `other` (`@Argument(.vault)`).
    init(_ other: Argument) { spec = other.spec }

    /// The vault path that most commands take first: `<vault>`, "The vault file.".
    static var vault: Argument { Argument("vault", help: "The vault file.") }

    var argumentSpec: ArgumentSpec? { spec }
    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// A positional argument that may be left out: `nil` when it was.
@propertyWrapper final class OptionalArgument: Declaration, @unchecked Sendable {
    let spec: ArgumentSpec
    private(set) var wrappedValue: String?

    init(_ name: String, help: String, completion: Completion = .automatic) {
        spec = ArgumentSpec(name: name, help: help, optional: true, completion: completion)
    }

    var argumentSpec: ArgumentSpec? { spec }
    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// The last argument, taking every remaining word (`<name> ...`): the words in order.
@propertyWrapper final class RemainingArguments: Declaration, @unchecked Sendable {
    let spec: ArgumentSpec
    private(set) var wrappedValue: [String] = []

    init(
        _ name: String,
        help: String,
        optional: Bool = false,
        passthrough: Bool = false,
        completion: Completion = .automatic
    ) {
        spec = ArgumentSpec(
            name: name,
            help: help,
            optional: optional,
            completion: completion,
            repeats: true,
            passthrough: passthrough
        )
    }

    var argumentSpec: ArgumentSpec? { spec }
    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// A shared group of options (`@Group var credentials: CredentialOptions`), read by the group's
/// own initialiser; `specs` overrides the group's options (a selector with its filters).
@propertyWrapper final class Group<Value: OptionGroup>: Declaration, @unchecked Sendable {
    let optionSpecs: [OptionSpec]
    private var value: Value?

    init(specs: [OptionSpec] = Value.specs) { optionSpecs = specs }

    /// The group's values; reading them before parsing is a programming error.
    var wrappedValue: Value {
        guard let value else { preconditionFailure("\(Value.self) read before the command line was parsed") }
        return value
    }

    func fill(from parsed: ParsedArguments) throws { value = try Value(parsed) }
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
        var spare = positionals.count - argumentSpecs.filter { !$0.optional && !$0.repeats }.count
        var next = 0
        for argument in argumentSpecs {
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
