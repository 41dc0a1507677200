// VaultDelivery tests: the credential server's config file (R-CS-1, R-CS-2).

import Foundation
import Testing

@testable import VaultDelivery

@Suite("CredentialServerConfig")
struct CredentialServerConfigTests {
    private func parseError(_ text: String) -> String? {
        do {
            _ = try CredentialServerConfig.parse(text, path: "c.conf")
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func parse_readsEntriesSkippingCommentsAndBlankLines() throws {
        let config = try CredentialServerConfig.parse(
            "# unit credential reference\n\nmyapp.service\tdb-password  vault://db/app\r\n",
            path: "c.conf"
        )
        #expect(config.entries.count == 1)
        let entry = try #require(config["myapp.service", "db-password"])
        #expect(entry.reference.description == "vault://db/app")
        #expect(entry.line == 3)
    }

    @Test func parse_namesTheLineOfTheFirstMistake() {
        #expect(
            parseError("a.service x vault://a/b\na.service x vault://c/d\n")?.hasSuffix("is already given on line 1")
                == true
        )
        #expect(
            parseError("a.timer x vault://a/b")
                == "the config file 'c.conf', line 1: 'a.timer' is not a unit that takes LoadCredential= (.service, .socket, .mount, .swap)"
        )
        #expect(
            parseError("a.service x")
                == "the config file 'c.conf', line 1: expected UNIT CREDENTIAL-ID REFERENCE separated by spaces, found 2 field(s)"
        )
        #expect(parseError("a.service x\u{7} vault://a/b")?.hasSuffix("printable ASCII, space and tab") == true)
    }

    @Test func problems_ofNames() {
        #expect(CredentialServerConfig.unitProblem("app@1.service") == nil)
        #expect(CredentialServerConfig.credentialProblem("..") != nil)
        #expect(CredentialServerConfig.credentialProblem("a/b") != nil)
    }

    @Test func load_fileOthersCanWrite_isRefused() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let path = try scratch.file("c.conf", "a.service x vault://a/b\n", mode: 0o622)
        do {
            _ = try CredentialServerConfig.load(path)
            Issue.record("no error")
        } catch {
            #expect(error.code == .refused)
            #expect(error.reason.hasSuffix("mode 622 lets every user change it; chmod go-w it"))
        }
        chmod(path, 0o600)
        #expect(try CredentialServerConfig.load(path).entries.count == 1)
    }
}
