// vaulttool unit tests: the one sentence and exit status each error becomes.

import Glibc
import Testing
import VaultDelivery
import VaultIO

@testable import vaulttool

@Suite("ErrorReport")
struct ErrorReportTests {
    @Test func errorLine_startsWithACapitalAndHasNoFinalPeriod() {
        #expect(errorLine("wrong password or key file.") == "Error: Wrong password or key file\n")
        #expect(errorLine("Unknown option '--foo'") == "Error: Unknown option '--foo'\n")
    }

    @Test func formatErrors_haveTheirStatus() {
        #expect(describe(VaultFormatError(.wrongCredential)) == ("wrong password or key file", .wrongCredential))
        #expect(describe(VaultFormatError(.notAVault)) == ("this file is not a vault", .damaged))
        let damaged = describe(VaultFormatError(.recordCorrupt, "a record does not decrypt"))
        #expect(damaged.1 == .damaged)
        #expect(damaged.0.hasPrefix("the vault is damaged or was tampered with: a record does not decrypt; restore"))
    }

    @Test func ioErrors_nameTheStepThePathAndTheErrno() {
        let (text, status) = describe(
            VaultIOError(.system, operation: "rename", errno: Errno(rawValue: EIO), path: "/v")
        )
        #expect(status == .ioFailure)
        #expect(text.hasPrefix("rename failed on '/v': "))
        #expect(text.hasSuffix("(errno 5)"))
        #expect(describe(VaultIOError(.lockTimeout)).1 == .busy)
        #expect(describe(VaultIOError(.lockTimeout)).0.contains("(lock timeout)"))
    }

    @Test func deliveryErrors_haveAShellsStatus() {
        #expect(describe(VaultDeliveryError(.commandNotFound)).1 == ExitCode(rawValue: 127))
        #expect(describe(VaultDeliveryError(.commandNotExecutable)).1 == ExitCode(rawValue: 126))
        #expect(describe(VaultDeliveryError(.invalidArgument)).1 == .usage)
    }

    @Test func counts_haveThousandsSeparators() {
        #expect(Output.count(0) == "0")
        #expect(Output.count(999) == "999")
        #expect(Output.count(1_234_567) == "1,234,567")
    }
}
