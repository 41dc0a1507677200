// vaulttool secret-service --install: the D-Bus activation file and the systemd user unit.

/// The two files `--install` writes, with every word quoted for the program that reads it.
///
/// Spec: Spec/secret-service.md, §9.
package enum ProviderInstall {
    /// A command that no activation file or unit can carry.
    package struct Refusal: Error {
        package let message: String
    }

    /// The activation file under `dataHome` and the user unit under `configHome`, each with its
    /// text, for a provider started as `executable secret-service --vault <vault>...`.
    ///
    /// - Parameter vaults: Absolute paths.
    /// - Throws: ``Refusal`` for a word with a control character (no `Exec=` line carries it), or
    ///   an executable path with a quote or a backslash (systemd refuses it: `string_is_safe`).
    package static func files(executable: String, vaults: [String], dataHome: String, configHome: String)
        throws(Refusal) -> [(path: String, text: String)]
    {
        let words = [executable, "secret-service"] + vaults.flatMap { ["--vault", $0] }
        if let bad = words.first(where: { $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f } }) {
            throw Refusal(
                message: "\(String(reflecting: bad)) holds a control character, which an Exec= line cannot carry"
            )
        }
        if executable.contains(where: { $0 == "\"" || $0 == "'" || $0 == "\\" }) {
            throw Refusal(
                message:
                    "systemd cannot run \(executable): its path holds a quote or a backslash; install vaulttool elsewhere"
            )
        }
        let command = words.map(activationWord).joined(separator: " ")
        let unitCommand = words.enumerated().map { unitWord($1, isExecutable: $0 == 0) }.joined(separator: " ")
        return [
            (
                dataHome + "/dbus-1/services/org.freedesktop.secrets.service",
                "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=\(command)\n"
                    + "SystemdService=vaulttool-secret-service.service\n"
            ),
            (
                configHome + "/systemd/user/vaulttool-secret-service.service",
                "[Unit]\nDescription=vault Secret Service provider (org.freedesktop.secrets)\n\n[Service]\n"
                    + "Type=dbus\nBusName=org.freedesktop.secrets\nExecStart=\(unitCommand)\n"
            ),
        ]
    }

    private static func isBare(_ word: String) -> Bool {
        !word.isEmpty
            && word.unicodeScalars.allSatisfy { c in
                c.isASCII
                    && (c.properties.isAlphabetic || c.properties.numericType != nil
                        || "/._+,:@=-".unicodeScalars.contains(c))
            }
    }

    /// A word for the activation file's `Exec=`: dbus-daemon reads the value as a desktop-entry
    /// value (so `\\` stands for a backslash, and `\"` makes the file invalid) and then splits it
    /// as a shell would, without expansions. So: bare when it holds only `[A-Za-z0-9/._+,:@=-]`,
    /// else in single quotes (a quote as `'\''`), then every backslash doubled.
    static func activationWord(_ word: String) -> String {
        if isBare(word) { return word }
        return ("'" + word.replacing("'", with: "'\\''") + "'")
            .replacing("\\", with: "\\\\")
    }

    /// A word for the unit's `ExecStart=`: systemd resolves `%` specifiers in every word and `$`
    /// variables in the arguments (not in the executable), and unescapes C-style inside double
    /// quotes. So `%%`, `$$` in an argument, then bare or in double quotes with `\\` and `\"`.
    static func unitWord(_ word: String, isExecutable: Bool) -> String {
        var text = word.replacing("%", with: "%%")
        if !isExecutable { text = text.replacing("$", with: "$$") }
        if isBare(text) { return text }
        return "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            + "\""
    }
}
