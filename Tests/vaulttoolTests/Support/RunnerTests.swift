// vault: the test runner itself, under a child that does not read its input.

import Testing

@Suite("Test runner")
struct RunnerTests {
    /// A refused command exits before reading stdin; feeding it more than a pipe holds used to
    /// kill the whole test process with SIGPIPE (CI exited with signal 13).
    @Test func childThatIgnoresItsInput_doesNotKillTheTestProcess() throws {
        let w = try Workspace()
        let input = [UInt8](repeating: 0x61, count: 1 << 20)
        let result = try Tool.run(["get", "--bogus-option"], stdin: input, in: w.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("Unknown option '--bogus-option'"))
    }
}
