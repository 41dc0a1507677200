// vault fuzz target: the decrypted-index parser (entry order, classes, versions, lengths).

import FuzzSupport
import VaultFormat
import _VaultHooks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // Layout of an input: deletionCount:u8 || generation:u8 || recordsLength:u32 || index plaintext.
    guard size >= 6 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let deletions = Int(bytes[0] % 8)
    let plain = Array(bytes[6...])
    let entriesBytes = plain.count - 24 * deletions
    guard entriesBytes >= 0 else { return 0 }
    let recordsLength = Int(bytes[2]) | Int(bytes[3]) << 8 | Int(bytes[4]) << 16 | Int(bytes[5]) << 24
    let header = VaultHeader(
        vaultID: [UInt8](repeating: 7, count: 16),
        created: 0,
        generation: UInt64(bytes[1]) + 1,
        keyslots: [],
        indexNonce: [UInt8](repeating: 0, count: 24),
        recordCount: entriesBytes / IndexEntry.byteCount,
        deletionCount: deletions,
        recordsLength: recordsLength
    )
    _ = try? FuzzingEntryPoints.parseIndex(plain, header: header)
    return 0
}

/// SwiftPM renames an executable's `main` to `FuzzIndex_main`; hand control to libFuzzer.
@_cdecl("FuzzIndex_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
