// vaulttool generate: a random password.

import VaultFormat

/// `vaulttool generate [--length <n>] [--alphabet <characters>]`.
struct Generate: Command {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Print a random password.",
        discussion: """
            By default: four groups of three letters and digits without look-alikes (xxx-xxx-xxx-xxx),
            about 70 bits. With --length or --alphabet: that many characters from that alphabet
            (default alphabet: letters and digits without look-alikes; default length: 20).
            """
    )
    static let options = [
        OptionSpec(names: ["--length"], valueName: "n", help: "The number of characters (1 to 4096)."),
        OptionSpec(names: ["--alphabet"], valueName: "characters", help: "The characters to draw from."),
        OptionSpec(names: ["--count"], valueName: "n", help: "How many passwords to print (default 1)."),
    ]
    static let arguments: [ArgumentSpec] = []

    let shape: PasswordGenerator.Shape
    let count: Int

    init(_ parsed: ParsedArguments) throws {
        let length = try parsed.value("--length").map { text in
            guard let value = Int(text), (1...4096).contains(value) else {
                throw UsageError("'--length' needs a number from 1 to 4096")
            }
            return value
        }
        let alphabet = parsed.value("--alphabet")
        if let alphabet, Swift.Set(alphabet).count < 2 {
            throw UsageError("'--alphabet' needs at least two different characters")
        }
        if length == nil && alphabet == nil {
            shape = .grouped
        } else {
            shape = .custom(length: length ?? 20, alphabet: alphabet ?? PasswordGenerator.unambiguousAlphabet)
        }
        count =
            try parsed.value("--count").map { text in
                guard let value = Int(text), (1...1000).contains(value) else {
                    throw UsageError("'--count' needs a number from 1 to 1000")
                }
                return value
            } ?? 1
    }

    func run() throws {
        let generator = PasswordGenerator(shape)
        for _ in 0..<count { Output.out(try generator.generate() + "\n") }
    }
}
