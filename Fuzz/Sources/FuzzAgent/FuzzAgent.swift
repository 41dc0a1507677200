// vault fuzz target: the agent protocol's frame decoder (Spec/agent.md, "Frames").

import FuzzSupport
import _VaultHooks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The length prefix as a peer would send it, then the body as found.
    _ = AgentFrames.bodyCount(prefix: Array(bytes.prefix(4)))
    // A body that decodes re-encodes to the same bytes: the format is canonical.
    if let encoded = AgentFrames.reencode(body: bytes), encoded != bytes {
        fatalError("agent message decode/encode mismatch")
    }
    return 0
}

/// SwiftPM renames an executable's `main` to `FuzzAgent_main`; hand control to libFuzzer.
@_cdecl("FuzzAgent_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
