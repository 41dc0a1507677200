// vaulttool tests: the bash and zsh completion scripts, run by real shells (issue 12, section 3).

import Foundation
import Testing

@Suite("completions")
struct CompletionTests {
    /// Runs `script` with `shell` in `directory` and returns stdout.
    func shell(_ shell: String, _ script: String, in directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = shell.hasSuffix("zsh") ? ["-f", "-c", script] : ["--noprofile", "--norc", "-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// A workspace holding the bash script and a file that file completion would offer.
    func bashWorkspace() throws -> Workspace {
        let w = try Workspace()
        try w.write("vaulttool.bash", try Tool.run(["completions", "bash"]).stdout)
        try w.write("some-file.txt", "")
        return w
    }

    /// What bash's completion function offers for the words of a command line; the last word is the one completed.
    func bashComplete(_ words: [String], in w: Workspace) throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            source ./vaulttool.bash
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _vaulttool
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        return try shell("/bin/bash", script, in: w.path).split(separator: "\n").map(String.init)
    }

    @Test func bash_completesValues_notFiles() throws {
        let w = try bashWorkspace()
        #expect(try bashComplete(["vaulttool", "completions", ""], in: w) == ["bash", "zsh"])
        let help = try bashComplete(["vaulttool", "help", ""], in: w)
        #expect(help.contains("create") && help.contains("completions") && help.contains("ls"))
        #expect(!help.contains("some-file.txt"))
        #expect(
            try Set(bashComplete(["vaulttool", "set", "--accessibility", ""], in: w)) == [
                "whenUnlocked", "afterFirstUnlock", "always", "whenUnlockedThisDeviceOnly",
                "afterFirstUnlockThisDeviceOnly", "alwaysThisDeviceOnly", "whenPasscodeSetThisDeviceOnly",
            ]
        )
        #expect(try bashComplete(["vaulttool", "list", "--class", ""], in: w) == ["generic", "internet"])
        #expect(try bashComplete(["vaulttool", "set", "--class", "g"], in: w) == ["generic"])
        #expect(
            try bashComplete(["vaulttool", "import", "--from", "keepassxc-"], in: w) == [
                "keepassxc-xml", "keepassxc-csv",
            ]
        )
        #expect(
            try bashComplete(["vaulttool", "create", "--kdf", ""], in: w) == ["interactive", "moderate", "sensitive"]
        )
        #expect(try bashComplete(["vaulttool", "get", "--service", ""], in: w) == [])
    }

    @Test func bash_completesFilesWhereFilesBelong() throws {
        let w = try bashWorkspace()
        #expect(try bashComplete(["vaulttool", "get", "--password-file", "some"], in: w) == ["some-file.txt"])
        #expect(try bashComplete(["vaulttool", "get", "--service", "s", "some"], in: w) == ["some-file.txt"])
        #expect(try bashComplete(["vaulttool", "ls", "--j"], in: w) == ["--json"])
        #expect(try bashComplete(["vaulttool", "completions", "bash", ""], in: w) == [])
        let top = try bashComplete(["vaulttool", ""], in: w)
        #expect(top.contains("help") && top.contains("remove") && top.contains("generate"))
    }

    @Test func bash_scriptHasOneCaseperCommand() throws {
        let script = try Tool.run(["completions", "bash"]).stdout
        #expect(script.components(separatedBy: "        completions)").count == 2)
        #expect(script.components(separatedBy: "        help)").count == 2)
    }

    /// zsh: the script is loaded by compinit from `fpath` in an interactive zsh on a pseudo-terminal
    /// (zsh/zpty), and Tab is pressed, as a person would.
    func zshComplete(_ line: String, in w: Workspace) throws -> String {
        let script = """
            zmodload zsh/zpty
            # Reads the terminal until `mark` shows up (at most 60 s: a loaded CI machine is slow) and
            # prints what came.
            waitfor() {
                local all="" chunk i
                for i in {1..1200}; do
                    while zpty -rt z chunk; do all+=$chunk; done
                    [[ $all == *$1* ]] && break
                    sleep 0.05
                done
                print -r -- "$all"
            }
            zpty z 'zsh -f -i'
            zpty -w z 'PS1="> "; fpath=(\(w.path) $fpath); autoload -U compinit; compinit -u -D; unsetopt beep; vaulttool() { :; }; print READY$((20+1))'
            # Keys typed before the line editor is back (it turns bracketed paste on, ESC [?2004h, as
            # it starts reading a line) go to the terminal's cooked mode, where ^U erases the line
            # and Tab never completes: wait for the editor after READY, not only for READY.
            ready=""
            for i in {1..1200}; do
                while zpty -rt z chunk; do ready+=$chunk; done
                [[ $ready == *READY21*$'\\e[?2004h'* ]] && break
                sleep 0.05
            done
            zpty -w -n z $'\(line)\\t'
            zpty -w -n z $'\\C-e\\C-u'
            zpty -w z 'print DONE$((40+2))'
            waitfor DONE42
            zpty -d z
            """
        return try shell(try Self.zsh(), script, in: w.path)
    }

    /// The path of zsh; installed with apt-get when missing (CI images may lack it).
    static func zsh() throws -> String {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") { return "/usr/bin/zsh" }
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        install.arguments = ["sh", "-c", "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh >/dev/null 2>&1"]
        try install.run()
        install.waitUntilExit()
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"),
            "zsh is needed and could not be installed"
        )
        return "/usr/bin/zsh"
    }

    @Test func zsh_realCompletion() throws {
        let w = try Workspace()
        try w.write("_vaulttool", try Tool.run(["completions", "zsh"]).stdout)
        try w.write("some-file.txt", "")
        let syntax = try shell(try Self.zsh(), "zsh -n ./_vaulttool && print ok", in: w.path)
        #expect(syntax == "ok\n")

        let shells = try zshComplete("vaulttool completions ", in: w)
        #expect(shells.contains("bash") && shells.contains("zsh"))
        #expect(!shells.contains("some-file.txt"))

        let classes = try zshComplete("vaulttool set --accessibility ", in: w)
        #expect(classes.contains("whenPasscodeSetThisDeviceOnly"))
        #expect(!classes.contains("some-file.txt"))

        let help = try zshComplete("vaulttool help ", in: w)
        #expect(help.contains("migrate") && help.contains("generate"))
        #expect(!help.contains("some-file.txt"))

        let file = try zshComplete("vaulttool get --password-file some", in: w)
        #expect(file.contains("some-file.txt"))

        let options = try zshComplete("vaulttool ls --js", in: w)
        #expect(options.contains("--json"))
    }
}
