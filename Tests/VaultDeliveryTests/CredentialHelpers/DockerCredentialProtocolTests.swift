// VaultDelivery tests: docker's store, get, erase and list over a store.

import Testing
import VaultDelivery
import VaultIO

@Suite("DockerCredentialProtocol")
struct DockerCredentialProtocolTests {
    private func run(_ store: MemoryHelperStore, _ action: String, _ input: String = "") throws -> String {
        let output = try DockerCredentialProtocol(store: { store }).run(action, input: { Array(input.utf8) })
        return String(decoding: output, as: UTF8.self)
    }

    @Test func storeGetList_roundTripInDockersJSON() throws {
        let store = MemoryHelperStore()
        _ = try run(store, "store", #"{"serverurl":"https://Registry.example:5000/","Username":"ci","Secret":"a<b"}"#)
        #expect(store.items.first?.attributes.accessGroup == DockerCredentialProtocol.accessGroup)
        #expect(
            try run(store, "get", "https://registry.example:5000\n")
                == #"{"ServerURL":"https://registry.example:5000","Username":"ci","Secret":"a\u003cb"}"# + "\n"
        )
        #expect(try run(store, "list") == #"{"https://registry.example:5000":"ci"}"# + "\n")
    }

    @Test func get_unknownServer_isDockersNotFoundText() {
        #expect {
            try run(MemoryHelperStore(), "get", "nothing.example")
        } throws: { error in
            (error as? DockerCredentialProtocol.Failure)?.message == "credentials not found in native keychain"
        }
    }

    @Test func store_missingFields_areNamed() {
        for (input, message) in [
            (#"{"ServerURL":"r","Username":"u"}"#, "no credentials secret"),
            (#"{"ServerURL":"r","Secret":"s"}"#, "no credentials username"),
            ("[1]", "the credentials are not a JSON object of strings"),
        ] {
            #expect {
                try run(MemoryHelperStore(), "store", input)
            } throws: { error in
                (error as? DockerCredentialProtocol.Failure)?.message == message
            }
        }
    }

    @Test func server_urlRoundTrip() {
        let server = DockerServer(url: "HTTPS://Example.com:443/v2/")
        #expect(server.scheme == "https")
        #expect(server.server == "example.com")
        #expect(DockerServer(url: server.url) == server)
    }
}
