// vault: writes the seed corpora of the fuzz targets.
//
// Usage: FuzzSeeds <corpus-root> <fixtures-folder>

import Foundation
import VaultFormat
import _VaultHooks

let root = URL(fileURLWithPath: CommandLine.arguments[1])
let fixtures = URL(fileURLWithPath: CommandLine.arguments[2])
let files = FileManager.default

func write(_ target: String, _ name: String, _ bytes: [UInt8]) throws {
    let folder = root.appendingPathComponent(target)
    try files.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(bytes).write(to: folder.appendingPathComponent(name))
}

// Every fixture seeds the header target.
for name in try files.contentsOfDirectory(atPath: fixtures.path) where name.hasSuffix(".vault") {
    try write("FuzzHeader", name, Array(try Data(contentsOf: fixtures.appendingPathComponent(name))))
}

// Key-file vaults seed the open target (the target's fixed key file and device secret).
let random = SeededSource(seed: "vault fuzz seeds")
let keyFile = SecretBytes(bytes: [UInt8](repeating: 0x4B, count: 64))
let device = DeviceSecret(secret: SecretBytes(bytes: [UInt8](repeating: 0x44, count: 32)))
for count in [0, 1, 3, 12] {
    var items: [ItemDraft] = []
    var removed: [ItemID] = []
    for n in 0..<count {
        var attributes = ItemAttributes(service: "svc-\(n)", account: "acct-\(n)")
        let internet = n % 3 == 1
        if internet {
            attributes.server = "host\(n).example"
            attributes.port = UInt16(n + 1)
        }
        items.append(
            ItemDraft(
                id: ItemID(random: random),
                itemClass: internet ? .internetPassword : .genericPassword,
                protectionClass: ProtectionClass(rawValue: UInt8(n % 7))!,
                attributes: attributes,
                secret: SecretBytes(bytes: random.bytes(n * 5))
            )
        )
        if n == 2 { removed.append(ItemID(random: random)) }
    }
    let file = try FuzzingEntryPoints.keyFileVault(
        keyFile: keyFile,
        deviceSecret: device,
        items: items,
        removed: removed,
        random: random
    )
    try write("FuzzOpen", "keyfile-\(count).vault", file)
}

// Attribute encodings seed the attribute target (first byte: 1 = internet password).
var full = ItemAttributes(service: "service", account: "account")
full.label = "label"
full.generic = [1, 2, 3]
full.creationDate = 1_767_225_600_000
full.synchronizable = true
full.preserved = [PreservedAttribute(tag: 70, value: [9])]
try write("FuzzAttributes", "generic", [0] + FuzzingEntryPoints.encodeAttributes(full, internet: false))
full.server = "example.com"
full.port = 443
full.protocol = "https"
try write("FuzzAttributes", "internet", [1] + FuzzingEntryPoints.encodeAttributes(full, internet: true))

// Hand-laid index plaintexts seed the index target.
func entry(tag: UInt8, id: UInt8, classByte: UInt8, secret: UInt32) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 8) + [UInt8](repeating: id, count: 16) + [classByte]
    bytes[7] = tag
    bytes += [1, 0, 0, 0, 0, 0, 0, 0] + [10, 0] + withUnsafeBytes(of: secret.littleEndian) { Array($0) }
    return bytes
}
let entries = entry(tag: 1, id: 1, classByte: 0x00, secret: 32) + entry(tag: 2, id: 2, classByte: 0x13, secret: 5000)
let deletion = [UInt8](repeating: 9, count: 16) + [UInt8](repeating: 0, count: 8)
try write("FuzzIndex", "two-entries", [1, 0, 0, 0, 0, 0] + entries + deletion)
print("seed corpora written to \(root.path)")
