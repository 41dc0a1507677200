// vault fuzz target: the attribute TLV decoder inside records.

import FuzzSupport
import VaultFormat
import _VaultHooks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let internet = bytes[0] & 1 == 1
    if let attributes = try? FuzzingEntryPoints.decodeAttributes(Array(bytes[1...]), internet: internet) {
        // Whatever decodes must encode back to the same bytes (the encoding is canonical).
        let again = try? FuzzingEntryPoints.encodeAttributes(attributes, internet: internet)
        if again != Array(bytes[1...]) { fatalError("attribute encoding is not canonical") }
    }
    return 0
}

/// SwiftPM renames an executable's `main` to `FuzzAttributes_main`; hand control to libFuzzer.
@_cdecl("FuzzAttributes_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
