// vaulttool: options and arguments declared once, as the properties that hold their values.

import Synchronization

/// A type whose stored properties are its declarations: a command, or a group of options several
/// commands share. Each `@Flag`, `@Option`, `@RepeatedOption`, `@Argument`, `@OptionalArgument`,
/// `@RemainingArguments` and `@Group` property is at once the declaration that help, completions
/// and the parser read (in the order the properties are written) and the storage of the value
/// parsed for it, as swift-argument-parser's property wrappers are. See ``Command``.
protocol Declared {
    /// Options declared, from the properties (`--help` is added to every command's).
    static var options: [OptionSpec] { get }
    /// Positional arguments, in order, from the properties.
    static var arguments: [ArgumentSpec] { get }
    /// An instance with every declaration unfilled.
    init()
    /// Fills the declarations from parsed arguments, then validates; throws ``UsageError``.
    init(_ parsed: ParsedArguments) throws
    /// Checks the filled values and derives the rest; throws ``UsageError`` for bad input.
    mutating func validate() throws
}

extension Declared {
    static var options: [OptionSpec] { declared().declarations.flatMap(\.optionSpecs) }
    static var arguments: [ArgumentSpec] { declared().declarations.compactMap(\.argumentSpec) }

    /// The options declared, without those named `excluded` (a command that cannot take them).
    static func options(without excluded: String...) -> [OptionSpec] {
        options.filter { !excluded.contains($0.names[0]) }
    }

    init(_ parsed: ParsedArguments) throws {
        self = try Self.filled(from: parsed)
        try validate()
    }

    /// A new instance with every declaration filled from `parsed`, not yet validated.
    static func filled(from parsed: ParsedArguments) throws -> Self {
        let (value, declarations) = declared()
        // The declarations are the wrappers the value holds (classes), so filling them fills it.
        for declaration in declarations { try declaration.fill(from: parsed) }
        return value
    }

    mutating func validate() throws {}

    /// A new instance, and the declarations among its stored properties in the order they are written.
    static func declared() -> (command: Self, declarations: [any Declaration]) {
        DeclarationLog.collecting { Self() }
    }
}

/// A set of options that several commands share (`@Group var credentials: CredentialOptions`),
/// declared once as the group's properties and included with `@Group`, as swift-argument-parser's
/// `@OptionGroup`.
protocol OptionGroup: Declared {}

/// One property's declaration, noted in ``DeclarationLog`` when it is created.
protocol Declaration: AnyObject, Sendable {
    var optionSpecs: [OptionSpec] { get }
    var argumentSpec: ArgumentSpec? { get }
    func fill(from parsed: ParsedArguments) throws
}

extension Declaration {
    var optionSpecs: [OptionSpec] { [] }
    var argumentSpec: ArgumentSpec? { nil }
}

/// A declaration of one option: `@Flag`, `@Option`, `@RepeatedOption`.
protocol OptionDeclaration: Declaration {
    var spec: OptionSpec { get }
}

extension OptionDeclaration {
    /// The long name (`--output`), for messages.
    var name: String { spec.names[0] }
    var optionSpecs: [OptionSpec] { [spec] }
}

/// A declaration of one positional argument: `@Argument`, `@OptionalArgument`, `@RemainingArguments`.
protocol ArgumentDeclaration: Declaration {
    var spec: ArgumentSpec { get }
}

extension ArgumentDeclaration {
    var argumentSpec: ArgumentSpec? { spec }
}

/// Where the wrappers a command's initialiser creates are noted, so that its declarations are found
/// without reflection.
///
/// `Mirror` and an `as? any Declaration` cast per property cost a scan of every protocol
/// conformance in the binary on each start, about a quarter of a `get` (BENCHMARKS.md, "A lean
/// process"). Instead each wrapper notes itself when it is created; `collecting` keeps, in
/// creation order (the order the stored properties are written and initialised), those whose
/// reference the new value holds. A wrapper created meanwhile for something else (a `static let`
/// template initialised on first use, another thread's) is noted but not held, so it is dropped.
/// Only addresses of wrappers noted are compared with the value's words; nothing is dereferenced.
///
/// What this asks of a command: it is a struct whose wrappers are its own stored properties, each
/// created by its initialiser (a shared template is copied with `init(_ other:)`, never stored as
/// it is: a stored template was created before the collection and is not found). A command does
/// not collect another command's declarations while it is created (the lock is not recursive).
enum DeclarationLog {
    /// Serialises collections, so each sees only the wrappers created while it runs.
    private static let collection = Mutex(())
    /// The wrappers created since the running collection began; `nil` when none runs.
    private static let created = Mutex<[any Declaration]?>(nil)

    static func note(_ declaration: any Declaration) {
        created.withLock { $0?.append(declaration) }
    }

    static func collecting<C>(_ make: () -> C) -> (command: C, declarations: [any Declaration]) {
        collection.withLock { _ in
            created.withLock { $0 = [] }
            var command = make()
            let noted = created.withLock { log in
                defer { log = nil }
                return log ?? []
            }
            let held = withUnsafeBytes(of: &command) { raw in
                Set(
                    stride(from: 0, to: raw.count - MemoryLayout<UInt>.size + 1, by: MemoryLayout<UInt>.alignment)
                        .map { raw.loadUnaligned(fromByteOffset: $0, as: UInt.self) }
                )
            }
            let declarations = noted.filter { held.contains(UInt(bitPattern: ObjectIdentifier($0))) }
            return (command, declarations)
        }
    }
}

// The wrappers are classes so that the properties of a value-type command can be filled in
// place through ``DeclarationLog``. Each is filled once, before `validate()`, and only read after:
// `@unchecked Sendable` holds.

/// A flag (`--json`); `true` when given. A `static let` one is a template that declarations
/// share (``RollbackOption/flag``).
@propertyWrapper final class Flag: OptionDeclaration, @unchecked Sendable {
    let spec: OptionSpec
    /// Whether the flag is among its owner's declared options; one that is not is read when a
    /// command declares it (`--accept-rollback`, through `@Group(specs:)`).
    private let listed: Bool
    private(set) var wrappedValue = false

    /// - Parameter shortName: Another spelling, such as `-n`.
    init(_ name: String, shortName: String? = nil, help: String) {
        spec = OptionSpec(names: [name] + (shortName.map { [$0] } ?? []), valueName: nil, help: help)
        listed = true
        DeclarationLog.note(self)
    }

    /// A property that reads the shared flag `other`, declared by its owner only when `listed`.
    init(_ other: Flag, listed: Bool) {
        spec = other.spec
        self.listed = listed
        DeclarationLog.note(self)
    }

    var optionSpecs: [OptionSpec] { listed ? [spec] : [] }
    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// An option that takes a value (`--output <file>`): its last value, or `nil`.
@propertyWrapper final class Option: OptionDeclaration, @unchecked Sendable {
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
        DeclarationLog.note(self)
    }

    /// A property declared as the shared option `other` (`@Option(VaultLocation.option)`).
    init(_ other: Option) {
        spec = other.spec
        DeclarationLog.note(self)
    }

    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// An option that may repeat (`--keep-password-file <file> ...`): every value in order.
@propertyWrapper final class RepeatedOption: OptionDeclaration, @unchecked Sendable {
    let spec: OptionSpec
    private(set) var wrappedValue: [String] = []

    init(_ name: String, valueName: String, help: String, completion: Completion = .automatic) {
        spec = OptionSpec(names: [name], valueName: valueName, help: help, repeats: true, completion: completion)
        DeclarationLog.note(self)
    }

    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// A required positional argument; the parser has already refused a command line without it.
@propertyWrapper final class Argument: ArgumentDeclaration, @unchecked Sendable {
    let spec: ArgumentSpec
    private(set) var wrappedValue = ""

    init(_ name: String, help: String, completion: Completion = .automatic) {
        spec = ArgumentSpec(name: name, help: help, completion: completion)
        DeclarationLog.note(self)
    }

    /// A property declared as the shared argument `other` (`@Argument(.vault)`).
    init(_ other: Argument) {
        spec = other.spec
        DeclarationLog.note(self)
    }

    /// The vault path that most commands take first: `<vault>`, "The vault file.".
    static var vault: Argument { Argument("vault", help: "The vault file.") }

    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// A positional argument that may be left out: `nil` when it was.
@propertyWrapper final class OptionalArgument: ArgumentDeclaration, @unchecked Sendable {
    let spec: ArgumentSpec
    private(set) var wrappedValue: String?

    init(_ name: String, help: String, completion: Completion = .automatic) {
        spec = ArgumentSpec(name: name, help: help, optional: true, completion: completion)
        DeclarationLog.note(self)
    }

    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// The last argument, taking every remaining word (`<name> ...`): the words in order.
@propertyWrapper final class RemainingArguments: ArgumentDeclaration, @unchecked Sendable {
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
        DeclarationLog.note(self)
    }

    func fill(from parsed: ParsedArguments) { wrappedValue = parsed[self] }
}

/// A shared group of options (`@Group var credentials: CredentialOptions`), read by the group's
/// own initialiser; `specs` overrides the options the command declares (a group without some, or
/// with `--accept-rollback`). The group reads its values by name, so an option left out reads as
/// not given.
@propertyWrapper final class Group<Value: OptionGroup>: Declaration, @unchecked Sendable {
    /// Evaluated once the command's declarations are collected: the group's own are collected then.
    private let specs: () -> [OptionSpec]
    private var value: Value?

    init(specs: @escaping @autoclosure () -> [OptionSpec] = Value.options) {
        self.specs = specs
        DeclarationLog.note(self)
    }

    var optionSpecs: [OptionSpec] { specs() }

    /// The group's values; reading them before parsing is a programming error. A command's
    /// `validate()` may adjust them (`credentialOptions.mayPrompt = false` for a driver).
    var wrappedValue: Value {
        get {
            guard let value else { preconditionFailure("\(Value.self) read before the command line was parsed") }
            return value
        }
        set { value = newValue }
    }

    func fill(from parsed: ParsedArguments) throws { value = try Value(parsed) }
}

// MARK: - Reading parsed values

extension ParsedArguments {
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
