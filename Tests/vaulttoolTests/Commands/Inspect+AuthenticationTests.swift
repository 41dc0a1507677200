// vaulttool: inspect labels plain-header values unauthenticated and checks the MAC with a credential (issue 9, section 5).

import Foundation
import Testing
import VaultTestSupport

@Suite("inspect and the header MAC")
struct InspectAuthenticationTests {
    private static let unchecked =
        "Header MAC:  not checked: the values above are unauthenticated (anyone who can write the file can "
        + "change them); give a credential to check it\n"
    private static let checked = "Header MAC:  checked with the credential: the values above are authenticated\n"

    @Test func withoutCredential_labelsValuesUnauthenticated() throws {
        let w = try Workspace()
        try w.makeVault()
        let text = try w.run(["inspect", "v.vault"])
        #expect(text.status == 0)
        #expect(text.stdout.contains(Self.unchecked))
        let json = try w.run(["inspect", "--json", "v.vault"]).json()
        #expect(json["authenticated"] as? Bool == false)
    }

    @Test func withCredential_checksTheMAC_withoutItems() throws {
        let w = try Workspace()
        try w.makeVault()
        let text = try w.run(["inspect", "--password-file", "pw", "v.vault"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains(Self.checked))
        let json = try w.run(["inspect", "--json", "--password-file", "pw", "v.vault"]).json()
        #expect(json["authenticated"] as? Bool == true)
        try w.write("wrong", "not the password")
        let wrong = try w.run(["inspect", "--password-file", "wrong", "v.vault"])
        #expect(wrong.status == 3)
        #expect(wrong.stdout == "")
    }

    /// A generation edited with the checksum recomputed passes the structure check; only the MAC,
    /// checked when a credential is given, catches it.
    @Test func editedHeaderWithFixedChecksum_isCaughtOnlyWithACredential() throws {
        let w = try Workspace()
        let source = FixtureRunner.fixturesRoot.appendingPathComponent("v1/header_edited_checksum_fixed.vault")
        try FileManager.default.copyItem(atPath: source.path, toPath: w.file("edited.vault"))
        let plain = try w.run(["inspect", "edited.vault"])
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("Structure:   ok"))
        #expect(plain.stdout.contains(Self.unchecked))
        let checked = try w.run(["inspect", "--password-file", "pw", "edited.vault"])
        #expect(checked.status == 4)
        #expect(checked.stdout == "")
        #expect(checked.stderr.contains("header authentication failed"))
    }
}
