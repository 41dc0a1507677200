// vaulttool generate: a random password.

import FoundationEssentials
import Glibc
import VaultIO

/// `vaulttool generate [--length <n>] [--alphabet <characters>]`.
struct Generate: Command {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Print a random password.",
        discussion: """
            By default: four groups of three letters and digits without look-alikes (xxx-xxx-xxx-xxx),
            about 70 bits. With --length or --alphabet: that many characters from that alphabet
            (default alphabet: letters and digits without look-alikes; default length: 20).
            A single password ends with a newline only when standard output is a terminal and -n is
            not given, so that 'vaulttool generate | vaulttool set ...' stores no newline; with
            --count above 1 every password is on its own line.
            """
    )
    @Option("--length", valueName: "n", help: "The number of characters (1 to 4096).") var lengthText: String?
    @Option("--alphabet", valueName: "characters", help: "The characters to draw from.") var alphabet: String?
    @Option("--count", valueName: "n", help: "How many passwords to print (default 1).") var countText: String?
    @Flag("--no-newline", shortName: "-n", help: "Never end a single password with a newline.") var noNewline: Bool

    private(set) var shape = PasswordGenerator.Shape.grouped
    private(set) var count = 1

    mutating func validate() throws {
        let length = try lengthText.map { text in
            guard let value = Int(text), (1...4096).contains(value) else {
                throw UsageError("'--length' needs a number from 1 to 4096")
            }
            return value
        }
        if let alphabet, Swift.Set(alphabet).count < 2 {
            throw UsageError("'--alphabet' needs at least two different characters")
        }
        if length != nil || alphabet != nil {
            shape = .custom(length: length ?? 20, alphabet: alphabet ?? PasswordGenerator.unambiguousAlphabet)
        }
        count =
            try countText.map { text in
                guard let value = Int(text), (1...1000).contains(value) else {
                    throw UsageError("'--count' needs a number from 1 to 1000")
                }
                return value
            } ?? 1
    }

    func run() throws {
        let generator = PasswordGenerator(shape)
        let newline = Self.endsWithNewline(
            count: count,
            noNewline: noNewline,
            terminal: Terminal.isTerminal(STDOUT_FILENO)
        )
        for index in 0..<count {
            Output.out(try generator.generate() + (index < count - 1 || newline ? "\n" : ""))
        }
    }

    /// Whether the last password ends with a newline: several passwords are lines; a single
    /// one gets a newline only for a person reading a terminal. Spec: Spec/cli.md, "generate".
    static func endsWithNewline(count: Int, noNewline: Bool, terminal: Bool) -> Bool {
        count > 1 || (terminal && !noNewline)
    }
}
