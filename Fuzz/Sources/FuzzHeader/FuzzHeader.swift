// vault fuzz target: the plain header decoder (preamble, checksum, TLV fields, keyslots).

import FuzzSupport
import VaultFormat
import _VaultHooks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let length = try? VaultHeader.headerLength(preamble: bytes.prefix(16), fileLength: bytes.count) else {
        return 0
    }
    // Decode the header as found, and once more with the checksum fixed so that the
    // field parser is reached for every mutation, not only checksum-preserving ones.
    _ = try? VaultHeader.decode(Array(bytes[0..<length]), fileLength: bytes.count)
    var fixed = Array(bytes[0..<length])
    let checksum = FuzzingEntryPoints.headerChecksum(fixed[0..<length - 64])
    fixed.replaceSubrange(length - 64..<length - 32, with: checksum)
    if let header = try? VaultHeader.decode(fixed, fileLength: bytes.count) {
        for slot in header.keyslots { _ = try? Keyslot.decode(slot.encoded[...]) }
        _ = try? header.keyslots.forEach { try $0.kdf?.validateForReading() }
    }
    return 0
}

/// SwiftPM renames an executable's `main` to `FuzzHeader_main`; hand control to libFuzzer.
@_cdecl("FuzzHeader_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
