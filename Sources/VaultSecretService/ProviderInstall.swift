// vaulttool secret-service --install: the D-Bus activation file and the systemd user unit.

import FoundationEssentials
import Glibc

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

    /// `--install`: writes ``files(executable:vaults:dataHome:configHome:)`` under
    /// `$XDG_DATA_HOME` (else `~/.local/share`) and `$XDG_CONFIG_HOME` (else `~/.config`), each
    /// atomically with mode 0644 and its directories made first; a file that already holds its
    /// text is left as it is.
    ///
    /// - Parameters:
    ///   - executable: The provider's absolute path.
    ///   - vaults: The vaults to serve, made absolute against the working directory.
    ///   - environment: Where `HOME`, `XDG_DATA_HOME` and `XDG_CONFIG_HOME` are read.
    ///   - done: Told one line per file as soon as it is done: `wrote <path>`, `replaced <path>`
    ///     or `unchanged <path>`.
    /// - Throws: ``Refusal`` without `HOME`, or for a command no file can carry; the file system's errors.
    package static func install(
        executable: String,
        vaults: [String],
        environment: [String: String],
        done: (String) -> Void
    ) throws {
        guard let home = environment["HOME"], !home.isEmpty else { throw Refusal(message: "HOME is not set") }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let absolute = vaults.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        for (path, text) in try files(executable: executable, vaults: absolute, dataHome: data, configHome: config) {
            let old = try? String(contentsOfFile: path, encoding: .utf8)
            if old == text {
                done("unchanged \(path)\n")
                continue
            }
            try FileManager.default.createDirectory(
                atPath: String(path[..<path.lastIndex(of: "/")!]),
                withIntermediateDirectories: true
            )
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            _ = chmod(path, 0o644)
            done("\(old == nil ? "wrote" : "replaced") \(path)\n")
        }
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
