// VaultDelivery tests: `--env NAME=REF` and env files.

import Testing
import VaultDelivery
import VaultIO

@Suite("RunEnvironment")
struct RunEnvironmentTests {
    @Test func assignment_splitsNameAndReference() throws {
        let assignment = try RunEnvironment.assignment("TOKEN=vault://ci/npm", option: "--env", asFile: true)
        #expect(assignment.name == "TOKEN")
        #expect(assignment.reference?.description == "vault://ci/npm")
        guard case .file = assignment.value else {
            Issue.record("not a file assignment")
            return
        }
    }

    @Test func assignment_plainValueOrBadName_isAnArgumentError() {
        #expect(throws: VaultDeliveryError(.invalidArgument)) {
            try RunEnvironment.assignment("TOKEN=plain", option: "--env", asFile: false)
        }
        #expect(throws: VaultDeliveryError(.invalidArgument)) {
            try RunEnvironment.assignment("1X=vault://a/b", option: "--env", asFile: false)
        }
    }

    @Test func assignment_malformedReference_isAnInputError() {
        #expect(throws: VaultDeliveryError(.invalidInput)) {
            try RunEnvironment.assignment("X=vault://", option: "--env", asFile: false)
        }
    }

    @Test func isValidName_followsThePortableSet() {
        #expect(RunEnvironment.isValidName("_A1"))
        #expect(!RunEnvironment.isValidName("A-B"))
        #expect(!RunEnvironment.isValidName(""))
    }

    @Test func envFile_readsExportsQuotesCommentsAndReferences() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let path = try scratch.file(
            "app.env",
            "# comment\n\nexport A = 'one two' \nB=\"x\"\r\nC=vault://db/app\n  D=plain=value\n"
        )
        let assignments = try RunEnvironment.envFile(path)
        #expect(assignments.map(\.name) == ["A", "B", "C", "D"])
        let values = assignments.map { assignment -> String in
            switch assignment.value {
            case .plain(let text): return text
            case .secret(let reference), .file(let reference): return "ref " + reference.description
            }
        }
        #expect(values == ["one two", "x", "ref vault://db/app", "plain=value"])
    }

    @Test func envFile_lineThatIsNoAssignment_namesItsNumberNotItsText() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let path = try scratch.file("bad.env", "A=1\nhunter2\n")
        do {
            _ = try RunEnvironment.envFile(path)
            Issue.record("no error")
        } catch {
            #expect(error.code == .invalidInput)
            #expect(error.reason.contains("line 2"))
            #expect(!error.reason.contains("hunter2"))
        }
    }

    @Test func envFile_missingFile_isASystemError() {
        #expect(throws: VaultDeliveryError(.system)) { try RunEnvironment.envFile("/nonexistent/app.env") }
    }
}
