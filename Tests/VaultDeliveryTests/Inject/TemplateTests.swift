// VaultDelivery tests: finding `{{ vault://… }}` in a template, and rendering it.

import Testing
import VaultDelivery
import VaultIO

@Suite("Template")
struct TemplateTests {
    @Test func placeholders_onlyReferencesCount() {
        let template = Template(Array("a: {{ vault://db/app }}\nb: {{ .Values.x }}\n  c: {{vault://x/y}}".utf8))
        #expect(template.placeholders.map(\.text) == ["vault://db/app", "vault://x/y"])
        #expect(template.placeholders.map(\.line) == [1, 3])
        #expect(template.placeholders.map(\.column) == [4, 6])
    }

    @Test func references_unclosedPlaceholder_namesLineAndColumn() {
        let template = Template(Array("x\n  {{ vault://db/app\n".utf8))
        #expect(throws: VaultDeliveryError(.invalidInput)) { try template.references() }
        do {
            _ = try template.references()
        } catch {
            #expect(
                error.reason
                    == "line 2, column 3: the reference 'vault://db/app' is not valid: it has no closing '}}' on its line"
            )
        }
    }

    @Test func rendered_replacesEachPlaceholderByteForByte() {
        let template = Template(Array("p={{ vault://a/b }};q={{vault://c/d}}".utf8))
        #expect(template.rendered([Array("1\n".utf8), []]) == Array("p=1\n;q=".utf8))
    }

    @Test func secrets_readsEachReferenceFromOneSnapshot() throws {
        let scratch = try ScratchVault([("db", "app", Array("s3cr3t".utf8))])
        defer { scratch.remove() }
        var opened = 0
        let template = Template(Array("{{ vault://db/app }} {{ vault://db/app }}".utf8))
        let secrets = try template.secrets {
            opened += 1
            return try scratch.snapshot()
        }
        #expect(opened == 1)
        #expect(secrets == [Array("s3cr3t".utf8), Array("s3cr3t".utf8)])
    }

    @Test func secrets_missingItem_isUnresolvedNamingTheLine() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let template = Template(Array("\n{{ vault://db/none }}".utf8))
        do {
            _ = try template.secrets { try scratch.snapshot() }
            Issue.record("no error")
        } catch let error as VaultDeliveryError {
            #expect(error.code == .unresolvedReference)
            #expect(error.reason == "line 2, reference 'vault://db/none'")
            #expect((error.underlying as? VaultIOError)?.code == .itemNotFound)
        }
    }

    @Test func secrets_noReference_opensNothing() throws {
        let secrets = try Template(Array("plain".utf8)).secrets { throw VaultDeliveryError(.system) }
        #expect(secrets.isEmpty)
    }
}
