// vault fuzz target: the agent protocol's frame decoder (Spec/agent.md, "Frames").

import FuzzSupport
@_spi(AgentProtocol) import VaultIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The length prefix as a peer would send it, then the body as found.
    _ = try? AgentMessage.bodyCount(prefix: Array(bytes.prefix(4)))
    // A body that decodes re-encodes to the same bytes: the format is canonical.
    if let message = try? AgentMessage.decode(body: bytes), message.encodeBody() != bytes {
        fatalError("agent message decode/encode mismatch")
    }
    return 0
}

/// SwiftPM renames an executable's `main` to `FuzzAgent_main`; hand control to libFuzzer.
@_cdecl("FuzzAgent_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
