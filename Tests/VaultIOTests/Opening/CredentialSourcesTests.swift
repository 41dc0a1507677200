// vault: CredentialSources reads each credential from its source, with one wording for each failure.

import Foundation
import Glibc
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("CredentialSources")
struct CredentialSourcesTests {
    /// The reason of the VaultIOError `body` throws, or `nil`.
    private func reason(_ code: VaultIOError.Code, _ body: () throws -> Void) -> String? {
        do {
            try body()
        } catch let error as VaultIOError where error.code == code {
            return error.reason
        } catch {
            Issue.record("unexpected \(error)")
        }
        return nil
    }

    /// A variable name no other test uses.
    private func variable() -> String { "VAULT_TEST_\(UInt32.random(in: 0...UInt32.max))" }

    @Test func password_fromAFile_dropsOneNewline() throws {
        try withTemporaryDirectory { directory in
            try Data("hunter2\n\n".utf8).write(to: URL(fileURLWithPath: directory + "/pw"))
            let password = try CredentialSources(password: .file(directory + "/pw")).password(
                confirm: false,
                prompt: ""
            )
            #expect(password.copyBytes() == Array("hunter2\n".utf8))
        }
    }

    @Test func password_fromTheEnvironment_isRemovedOnceRead() throws {
        let name = variable()
        setenv(name, "s3cr3t", 1)
        let password = try CredentialSources(password: .environment(name)).password(confirm: false, prompt: "")
        #expect(password.copyBytes() == Array("s3cr3t".utf8))
        #expect(getenv(name) == nil)
        #expect(
            reason(.invalidInput) {
                _ = try CredentialSources(password: .environment(name)).password(confirm: false, prompt: "")
            }
                == "environment variable \(name) is not set or empty; it must hold the password"
        )
    }

    @Test func password_environmentNamingAFile_isRefusedWithoutTheValue() {
        let name = variable()
        setenv(name, "/etc/hostname", 1)
        defer { unsetenv(name) }
        let text = reason(.invalidInput) {
            _ = try CredentialSources(password: .environment(name)).password(confirm: false, prompt: "")
        }
        #expect(text?.contains("use '--password-file-env \(name)'") == true)
        #expect(text?.contains("/etc/hostname") == false)
    }

    @Test func password_fileNamedByAnUnsetVariable_namesTheVariable() {
        let name = variable()
        #expect(
            reason(.invalidInput) {
                _ = try CredentialSources(password: .fileNamedByEnvironment(name)).password(confirm: false, prompt: "")
            } == "environment variable \(name) is not set; it must name a password file"
        )
    }

    @Test func password_missingFile_isUnreadable() {
        #expect(
            reason(.unreadableInput) {
                _ = try CredentialSources(password: .file("/nonexistent/pw")).password(confirm: false, prompt: "")
            }?.hasPrefix("cannot read the password file '/nonexistent/pw': ") == true
        )
    }

    @Test func prompt_withoutATerminal_namesTheAlternatives() {
        var sources = CredentialSources(prompt: { _ in nil })
        sources.promptAlternatives = "--password-file"
        #expect(
            reason(.invalidInput) { _ = try sources.credentials() }
                == "no password given and no terminal to ask on; use --password-file"
        )
    }

    @Test func prompt_confirmation_mustMatchAndIsAskedWithRetype() {
        let asked = Mutex<[String]>([])
        let answers = Mutex(["one", "two"])
        let sources = CredentialSources(prompt: { text in
            asked.withLock { $0.append(text) }
            return Array(answers.withLock { $0.removeFirst() }.utf8)
        })
        #expect(
            reason(.invalidInput) { _ = try sources.credentials(confirm: true, prompt: "New password") }
                == "the two entries differ; nothing was changed"
        )
        #expect(asked.withLock { $0 } == ["New password: ", "Retype new password: "])
    }

    @Test func credentials_keyFileAlone_asksForNoPassword() throws {
        try withTemporaryDirectory { directory in
            try Data(repeating: 7, count: 40).write(to: URL(fileURLWithPath: directory + "/key"))
            var sources = CredentialSources(prompt: { _ in
                Issue.record("asked")
                return nil
            })
            sources.keyFile = directory + "/key"
            let credentials = try sources.credentials()
            #expect(credentials.password == nil)
            #expect(credentials.keyFileDigest?.byteCount == 40)
        }
    }

    @Test func keyFile_emptyOrShort_isRefusedNamingTheFix() throws {
        try withTemporaryDirectory { directory in
            try Data().write(to: URL(fileURLWithPath: directory + "/empty"))
            try Data(repeating: 1, count: 8).write(to: URL(fileURLWithPath: directory + "/short"))
            #expect(
                reason(.invalidInput) { _ = try KeyFileDigest.read(fileAt: directory + "/empty") }?.hasSuffix(
                    "is empty"
                ) == true
            )
            let short = try KeyFileDigest.read(fileAt: directory + "/short")
            #expect(reason(.invalidInput) { try short.checkForNewKeyslot(path: "k") }?.contains("has 8 bytes") == true)
        }
    }

    @Test func deviceSecret_withOpenMode_isRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/device"
            try Data(repeating: 3, count: 32).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o644)
            #expect(
                reason(.invalidInput) { _ = try CredentialSources.loadDeviceSecret(path) }?
                    .hasPrefix("the device secret '\(path)' is refused: ") == true
            )
        }
    }

    @Test func namesNoCredential_andTheUsersDeviceSecret() {
        var sources = CredentialSources()
        #expect(sources.namesNoCredential)
        sources.identityFile = "id"
        #expect(!sources.namesNoCredential)
        #expect(sources.withUsersDeviceSecret == nil)
    }

    @Test func secretInput_overTheLimit_givesTheLimitAndWhy() throws {
        try withTemporaryDirectory { directory in
            try Data(repeating: 1, count: 3000).write(to: URL(fileURLWithPath: directory + "/t"))
            #expect(
                reason(.invalidInput) {
                    _ = try SecretInput.read("template", at: directory + "/t", limit: 2048, why: "small")
                }
                    == "the template '\(directory)/t' is larger than 2 KiB; small"
            )
        }
    }

    @Test func opening_withoutAnAgent_readsTheCredentials() throws {
        var sources = CredentialSources()
        sources.keyFile = "/nonexistent/key"
        #expect(
            reason(.unreadableInput) { _ = try sources.opening("x.vault", agent: nil) }?
                .hasPrefix("cannot read the key file") == true
        )
    }
}
