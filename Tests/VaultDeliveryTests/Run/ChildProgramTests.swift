// VaultDelivery tests: finding the program to run as execvp finds it.

import Testing
import VaultDelivery

@Suite("ChildProgram")
struct ChildProgramTests {
    @Test func lookUp_searchesEachDirectoryInOrder() throws {
        #expect(try ChildProgram.lookUp("sh", searchPath: "/nonexistent:/bin") == "/bin/sh")
    }

    @Test func lookUp_nameWithASlash_isUsedAsIs() throws {
        #expect(try ChildProgram.lookUp("/bin/sh", searchPath: "") == "/bin/sh")
        #expect(throws: VaultDeliveryError(.commandNotFound)) {
            try ChildProgram.lookUp("/nonexistent/x", searchPath: "")
        }
    }

    @Test func lookUp_fileThatCannotBeExecuted_isNotExecutable() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        _ = try scratch.file("tool", "#!/bin/sh\n", mode: 0o600)
        do {
            _ = try ChildProgram.lookUp("tool", searchPath: scratch.directory, showsPath: false)
            Issue.record("no error")
        } catch {
            #expect(error.code == .commandNotExecutable)
            #expect(error.reason == "the command 'tool' was found in PATH (a secret, not shown) but cannot be executed")
        }
    }
}
