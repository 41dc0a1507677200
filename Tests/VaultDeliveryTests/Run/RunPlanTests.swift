// VaultDelivery tests: the order of a run's variables, and resolving their references once.

import Testing
import VaultDelivery
import VaultIO

@Suite("RunPlan")
struct RunPlanTests {
    @Test func init_unknownCommand_isNotFound() {
        #expect(throws: VaultDeliveryError(.commandNotFound)) {
            try RunPlan(command: ["no-such-command-\(UInt32.random(in: 0...UInt32.max))"], inherited: [])
        }
    }

    @Test func init_inheritedReferenceThatIsNotUTF8_isRefusedWithoutItsValue() {
        let variable = RunEnvironment.Inherited(name: "DB", value: "vault://\u{FFFD}", isUTF8: false)
        do {
            _ = try RunPlan(command: ["sh"], inherited: [variable])
            Issue.record("no error")
        } catch {
            #expect(error.code == .invalidInput)
            #expect(
                error.reason.hasPrefix("the variable DB holds a reference that is not valid (its value is not shown)")
            )
        }
    }

    @Test func needsVault_onlyWithAReference() throws {
        #expect(try !RunPlan(command: ["sh"], inherited: [.init(name: "A", value: "plain")]).needsVault)
        #expect(try RunPlan(command: ["sh"], inherited: [.init(name: "A", value: "vault://a/b")]).needsVault)
    }

    @Test func resolve_opensOnceAndNamesTheVariableWhenTheVaultDoesNotOpen() throws {
        let given = try RunEnvironment.assignment("TOKEN=vault://ci/npm", option: "--env", asFile: false)
        let plan = try RunPlan(command: ["sh"], inherited: [], assignments: [given, given])
        var opened = 0
        do {
            try plan.resolve {
                opened += 1
                throw VaultIOError(.lockTimeout)
            }
            Issue.record("no error")
        } catch {
            #expect(opened == 1)
            #expect(error.code == .unresolvedReference)
            #expect(error.reason == "cannot resolve TOKEN=vault://ci/npm")
            #expect((error.underlying as? VaultIOError)?.code == .lockTimeout)
        }
    }

    @Test func resolve_inheritedReference_isNotShown() throws {
        let plan = try RunPlan(command: ["sh"], inherited: [.init(name: "PW", value: "vault+postgres://u:pw@h/db")])
        do {
            try plan.resolve { throw VaultIOError(.lockTimeout) }
            Issue.record("no error")
        } catch {
            #expect(error.reason == "cannot resolve PW (an inherited reference, not shown)")
        }
    }

    @Test func resolve_laterSourceWins() throws {
        let scratch = try ScratchVault([("db", "app", Array("s3cr3t".utf8))])
        defer { scratch.remove() }
        let envFile = try scratch.file("app.env", "TOKEN=vault://db/missing\n")
        let given = try RunEnvironment.assignment("TOKEN=vault://db/app", option: "--env", asFile: false)
        // The env file's reference would not resolve: only the --env one, which wins, is read.
        let plan = try RunPlan(command: ["sh"], inherited: [], envFiles: [envFile], assignments: [given])
        try plan.resolve { try scratch.snapshot() }
    }
}
