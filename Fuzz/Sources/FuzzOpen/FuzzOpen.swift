// vault fuzz target: the whole open path — header, keyslots, MAC, index, every record —
// with a fixed key file, so that no Argon2 runs.

import FuzzSupport
import VaultFormat

let keyFile = SecretBytes(bytes: [UInt8](repeating: 0x4B, count: 64))
let device = DeviceSecret(secret: SecretBytes(bytes: [UInt8](repeating: 0x44, count: 32)))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Refuse password keyslots before they run Argon2: the open path is what is fuzzed.
    if let length = try? VaultHeader.headerLength(preamble: bytes.prefix(16), fileLength: bytes.count),
        let header = try? VaultHeader.decode(Array(bytes[0..<length]), fileLength: bytes.count),
        header.keyslots.contains(where: { $0.kind.usesPassword })
    {
        return 0
    }
    guard let snapshot = try? VaultSnapshot.open(bytes, with: Credentials(keyFile: keyFile, deviceSecret: device))
    else { return 0 }
    _ = try? snapshot.items(includeSecrets: true, skipUnavailable: true)
    _ = try? snapshot.verify()
    return 0
}

/// SwiftPM renames an executable's `main` to `FuzzOpen_main`; hand control to libFuzzer.
@_cdecl("FuzzOpen_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
