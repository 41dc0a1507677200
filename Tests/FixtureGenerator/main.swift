// vault: writes the golden fixtures of one format folder.
//
// Usage: swift run vault-fixturegen Fixtures/v1      (format 1.0, frozen)
//        swift run vault-fixturegen Fixtures/v1.1    (format 1.1)
//        swift run vault-fixturegen Fixtures/v1.2    (format 1.2, recipients)
//        swift run vault-fixturegen Fixtures/v2      (format 2.0, access-group recipients)
//        swift run vault-fixturegen Fixtures/v2-damage (format 2.0, key holders' edits)
//        swift run vault-fixturegen Fixtures/v3      (format 3.0, merges of replicas)
// Landed fixtures are frozen; run this only to add new cases, and say why in the commit.

import Foundation
import VaultTestSupport

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let folder = arguments.first else {
    FileHandle.standardError.write(Data("usage: vault-fixturegen <folder>\n".utf8))
    exit(64)
}
do {
    // The folder's last component picks the catalog.
    let output =
        switch folder.split(separator: "/").last {
        case "v1.1": try FixtureCatalogV11.generate()
        case "v1.2": try FixtureCatalogV12.generate()
        case "v2": try FixtureCatalogV2.generate()
        case "v2-damage": try FixtureCatalogV2Damage.generate()
        case "v3": try FixtureCatalogV3.generate()
        default: try FixtureCatalog.generate()
        }
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for (name, bytes) in output.files.sorted(by: { $0.key < $1.key }) {
        try Data(bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
    }
    print("wrote \(output.files.count) files, \(output.manifest.cases.count) cases, to \(folder)")
} catch {
    FileHandle.standardError.write(Data("vault-fixturegen: \(error)\n".utf8))
    exit(1)
}
