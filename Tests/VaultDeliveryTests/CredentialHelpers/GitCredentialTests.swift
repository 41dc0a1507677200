// VaultDelivery tests: git's credential descriptions read as internet-password attributes.

import Testing
import VaultDelivery
import VaultIO

@Suite("GitCredential")
struct GitCredentialTests {
    @Test func parsing_readsFieldsUpToABlankLine() throws {
        let request = try GitCredential(
            parsing: Array("protocol=https\nhost=GitHub.com:8443\nusername=bot\npassword=pw\r\n\nhost=other\n".utf8)
        )
        #expect(request.protocol == "https")
        #expect(request.host == "GitHub.com:8443")
        #expect(request.password?.copyBytes() == Array("pw".utf8))
        let attributes = request.attributes
        #expect(attributes.server == "github.com")
        #expect(attributes.port == 8443)
        #expect(attributes.account == "bot")
    }

    @Test func parsing_url_setsSchemeUserHostAndPath() throws {
        let request = try GitCredential(parsing: Array("url=https://a%40b:x@example.com/org/repo.git\n".utf8))
        #expect(request.protocol == "https")
        #expect(request.username == "a@b")
        #expect(request.host == "example.com")
        #expect(request.path == "org/repo.git")
    }

    @Test func parsing_lineWithoutEquals_namesItsNumberOnly() {
        do {
            _ = try GitCredential(parsing: Array("protocol=https\nhunter2\n".utf8))
            Issue.record("no error")
        } catch {
            #expect(error.reason == "line 2 of the credential request has no '='")
        }
    }

    @Test func matches_comparesTheFieldsGivenInTheCanonicalSpelling() throws {
        let request = try GitCredential(parsing: Array("protocol=https\nhost=EXAMPLE.com.\n".utf8))
        var stored = ItemAttributes(account: "bot")
        stored.server = "example.com"
        stored.protocol = "https"
        #expect(request.matches(stored))
        stored.accessGroup = "deploy"
        #expect(!request.matches(stored))
    }
}
