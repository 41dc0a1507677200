// VaultDelivery tests: a helper program's output, error and status.

import Testing

@testable import VaultDelivery

@Suite("Subprocess")
struct SubprocessTests {
    @Test func run_collectsBothStreamsAndTheStatus() throws {
        let run = try Subprocess.run(["sh", "-c", "printf out; printf err >&2; exit 3"])
        #expect(run.status == 3)
        #expect(run.output == Array("out".utf8))
        #expect(run.error == Array("err".utf8))
    }

    @Test func run_missingProgram_is127() throws {
        #expect(try Subprocess.run(["no-such-program-of-vault"]).status == 127)
    }

    @Test func exitStatus_readsSignalsAsAShellDoes() {
        #expect(Subprocess.exitStatus(3 << 8) == 3)
        #expect(Subprocess.exitStatus(9) == 137)
    }
}
