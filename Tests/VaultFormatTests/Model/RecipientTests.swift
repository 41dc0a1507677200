// vault: recipient stanzas, identities and their text forms (format 1.2).

import Testing
import VaultFormat

private func hex(_ text: String) -> [UInt8] { Hex.decode(text.filter { !$0.isWhitespace })! }
private func range(_ start: UInt8, _ count: Int) -> [UInt8] { (0..<count).map { start &+ UInt8($0) } }

@Suite("Recipients (format 1.2)")
struct RecipientTests {
    static let master = MasterKey(secret: SecretBytes(bytes: range(0x00, 32)))
    static let vaultID = range(0x40, 16)
    static let identityText = "VAULT-IDENTITY-1:gIGCg4SFhoeIiYqLjI2Oj5CRkpOUlZaXmJmam5ydnp-5PmZ-"
    static let recipientText = "VAULT-RECIPIENT-1:ST6C_HRGSlkmiBdiPSBTxeuOLMSpiLT-4XnsawENUx06GxXC"

    /// Spec/format-v1.2.md section 8: the stanza computed independently in Python.
    @Test func stanza_matchesTheSpecVector() throws {
        let identity = try RecipientIdentity(fileContents: Array(Self.identityText.utf8))
        #expect(identity.recipient.bytes == hex("493e82fc74464a59268817623d2053c5eb8e2cc4a988b4fee179ec6b010d531d"))
        #expect(identity.recipient.description == Self.recipientText)
        let random = FixedRandom(range(0x60, 32) + range(0xA0, 24) + range(0xC0, 24))
        let stanza = try KeyHierarchy.makeRecipientStanza(
            for: Recipient(key: identity.recipient, name: "alice@laptop"),
            master: Self.master,
            vaultID: Self.vaultID,
            random: random
        )
        #expect(stanza.ephemeralKey == hex("675dd574ed7789310b3d2e7681f3790b466c773b1521fecf36577958371ea52f"))
        #expect(
            stanza.wrapped
                == hex(
                    "da249bf82ea2490bd6d7a4c1b0038b1098431d080c3d3be45f6377577a1e722a5285687cf754458f499ec4cb9a7c397d"
                )
        )
        #expect(
            stanza.info
                == hex(
                    """
                    f0f0a111abfa4c336b362ed7b30a68515b01dbc98e9a4fcf15a888bbe13153d0819dc3316c465cd57c395def9341ec41
                    82818e524528b767d4e1a3d08e2002ef14dba5f84f440e2fd44f0c70a36c58d6fff5b5df179536eb070488426601158a
                    f6ede41d8d8a32bbc57b8ba7e01adc25c3
                    """
                )
        )
        #expect(stanza.encoded.count == RecipientStanza.byteCount)
        let opened = try #require(KeyHierarchy.openRecipientStanza(stanza, identity: identity, vaultID: Self.vaultID))
        #expect(opened.secret == Self.master.secret)
        let read = try KeyHierarchy.recipient(of: stanza, master: Self.master, vaultID: Self.vaultID)
        #expect(read == Recipient(key: identity.recipient, name: "alice@laptop"))
    }

    /// R12-RCP-3: a stanza made for one key never opens with another, nor in another vault.
    @Test func stanza_opensOnlyForItsRecipientAndVault() throws {
        let alice = RecipientIdentity.generate()
        let mallory = RecipientIdentity.generate()
        let stanza = try KeyHierarchy.makeRecipientStanza(
            for: Recipient(key: alice.recipient, name: ""),
            master: Self.master,
            vaultID: Self.vaultID
        )
        #expect(KeyHierarchy.openRecipientStanza(stanza, identity: mallory, vaultID: Self.vaultID) == nil)
        #expect(KeyHierarchy.openRecipientStanza(stanza, identity: alice, vaultID: range(0x41, 16)) == nil)
        #expect(KeyHierarchy.openRecipientStanza(stanza, identity: alice, vaultID: Self.vaultID) != nil)
    }

    /// R12-TXT-1: prefix, length, alphabet and checksum are all checked.
    @Test func recipientKeyText_rejectsDamage() throws {
        #expect(try RecipientKey(text: "  \(Self.recipientText)\n").description == Self.recipientText)
        var flipped = Array(Self.recipientText)
        flipped[25] = flipped[25] == "A" ? "B" : "A"
        for bad in [
            String(flipped), String(Self.recipientText.dropLast()), Self.recipientText + "A",
            Self.recipientText.replacingOccurrences(of: "RECIPIENT", with: "IDENTITY"), "",
        ] {
            #expect(throws: VaultFormatError(.invalidParameter)) { try RecipientKey(text: bad) }
        }
        // R12-RCP-2: a low-order point (here the all-zero key) is refused.
        #expect(throws: VaultFormatError(.invalidParameter)) {
            try RecipientKey(bytes: [UInt8](repeating: 0, count: 32))
        }
    }

    /// R12-TXT-2: comments and blank lines are ignored; two identity lines or none are refused.
    @Test func identityFile_parsesOneLineAndRoundTrips() throws {
        let identity = RecipientIdentity.generate()
        let again = try RecipientIdentity(fileContents: identity.fileContents)
        #expect(again.recipient == identity.recipient)
        let text = "# comment\n\n  \(Self.identityText)\r\n# trailing\n"
        #expect(try RecipientIdentity(fileContents: Array(text.utf8)).recipient.description == Self.recipientText)
        for bad in ["", "# only a comment\n", Self.identityText + "\n" + Self.identityText, Self.recipientText] {
            let error = #expect(throws: VaultFormatError.self) { try RecipientIdentity(fileContents: Array(bad.utf8)) }
            #expect(error?.code == .invalidParameter)
            #expect(!(error?.reason.contains("gIGCg4") ?? true), "the message never quotes the file")
        }
    }

    /// R12-RCP-2: names over 64 bytes or with control characters are refused.
    @Test func recipientName_isChecked() throws {
        let key = RecipientIdentity.generate().recipient
        for name in [String(repeating: "x", count: 65), "a\u{1B}[31m", "line\nbreak"] {
            #expect(throws: VaultFormatError(.invalidParameter)) {
                try KeyHierarchy.makeRecipientStanza(
                    for: Recipient(key: key, name: name),
                    master: Self.master,
                    vaultID: Self.vaultID
                )
            }
        }
        let long = String(repeating: "é", count: 32)
        let stanza = try KeyHierarchy.makeRecipientStanza(
            for: Recipient(key: key, name: long),
            master: Self.master,
            vaultID: Self.vaultID
        )
        #expect(try KeyHierarchy.recipient(of: stanza, master: Self.master, vaultID: Self.vaultID).name == long)
    }

    /// R12-VER-1: a writer refuses to add a recipient to a 1.1 file; new vaults are 1.1.
    @Test func addRecipient_toVersion11_isRefused() throws {
        let master: MasterKey = SystemRandom().key()
        let keys = KeyHierarchy.keys(master: master, deviceSecret: nil, vaultID: Self.vaultID)
        let slot = try KeyHierarchy.makeKeyslot(
            kind: .keyFile,
            wrapping: master.secret,
            scope: .masterKey,
            credentials: Credentials(keyFile: SecretBytes(bytes: range(0x10, 32))),
            vaultID: Self.vaultID
        )
        var writer = try VaultWriter(vaultID: Self.vaultID, created: 0, keyslots: [slot], keys: keys)
        #expect(writer.header.minor == 1)
        let recipient = Recipient(key: RecipientIdentity.generate().recipient, name: "x")
        let refused = Result { () throws in try writer.addRecipient(recipient) }
        #expect(throws: VaultFormatError(.unsupportedVersion)) { try refused.get() }
        let raised = try writer.upgradeToVersion12()
        #expect(raised)
        try writer.addRecipient(recipient)
        let twice = Result { () throws in try writer.addRecipient(recipient) }
        #expect(throws: VaultFormatError(.invalidParameter)) { try twice.get() }
        #expect(try writer.recipients() == [recipient])
    }

    /// R12-RCP-6: a rekey rewraps every stanza from its stored key: the identity opens the new
    /// generation, whose stanza bytes all changed, and the old master key opens nothing.
    @Test func rekey_rewrapsEveryStanza() throws {
        let keyFile = Credentials(keyFile: SecretBytes(bytes: range(0x10, 32)))
        let master: MasterKey = SystemRandom().key()
        let keys = KeyHierarchy.keys(master: master, deviceSecret: nil, vaultID: Self.vaultID)
        let slot = try KeyHierarchy.makeKeyslot(
            kind: .keyFile,
            wrapping: master.secret,
            scope: .masterKey,
            credentials: keyFile,
            vaultID: Self.vaultID
        )
        var writer = try VaultWriter(vaultID: Self.vaultID, created: 0, keyslots: [slot], keys: keys)
        try writer.upgradeToVersion12()
        let alice = RecipientIdentity.generate()
        let bob = RecipientIdentity.generate()
        try writer.addRecipient(Recipient(key: alice.recipient, name: "alice"))
        try writer.addRecipient(Recipient(key: bob.recipient, name: "bob"))
        try writer.put(
            ItemDraft(
                id: ItemID(random: SystemRandom()),
                attributes: ItemAttributes(service: "s"),
                secret: SecretBytes(utf8: "x")
            )
        )
        let first = try writer.encode(now: 0)
        let snapshot = try VaultSnapshot.open(first, with: .identity(bob))
        #expect(snapshot.openedByRecipient)
        #expect(try snapshot.recipients().map(\.name) == ["alice", "bob"])

        var next = try VaultWriter(updating: snapshot)
        try next.removeRecipient(at: 0)
        let newMaster: MasterKey = SystemRandom().key()
        let kek = try #require(
            try KeyHierarchy.keyEncryptionKey(
                opening: slot,
                with: keyFile,
                vaultID: Self.vaultID,
                normalizingPassword: true
            )
        )
        try next.rekey(
            to: KeyHierarchy.keys(master: newMaster, deviceSecret: nil, vaultID: Self.vaultID),
            keyslots: [KeyHierarchy.rewrap(slot, key: newMaster.secret, using: kek, vaultID: Self.vaultID)],
            droppingForeign: false,
            now: 0
        )
        let second = try next.encode(now: 0)
        let reopened = try VaultSnapshot.open(second, with: .identity(bob))
        #expect(try reopened.items(includeSecrets: true).count == 1)
        #expect(reopened.header.recipientStanzas.count == 1)
        #expect(reopened.header.recipientStanzas[0] != snapshot.header.recipientStanzas[1])
        #expect(throws: VaultFormatError(.wrongCredential)) { try VaultSnapshot.open(second, with: .identity(alice)) }
    }
}
