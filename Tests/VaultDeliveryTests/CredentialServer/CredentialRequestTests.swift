// VaultDelivery tests: the unit and credential systemd names in its socket address (R-CS-5).

import Testing
import VaultDelivery

@Suite("CredentialRequest")
struct CredentialRequestTests {
    @Test func parse_abstractAddressInSystemdsShape() throws {
        let request = try CredentialRequest.parse([0] + Array("1f2e/unit/myapp.service/db-password".utf8))
        #expect(request.unit == "myapp.service")
        #expect(request.credential == "db-password")
    }

    @Test func parse_refusals() {
        #expect(throws: CredentialRequest.Refusal.unnamed) { try CredentialRequest.parse([]) }
        #expect(throws: CredentialRequest.Refusal.notAbstract) { try CredentialRequest.parse(Array("/run/x".utf8)) }
        #expect(throws: CredentialRequest.Refusal.malformed) {
            try CredentialRequest.parse([0] + Array("1f2e/unit/myapp.timer/db".utf8))
        }
    }
}
