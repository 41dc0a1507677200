// vault: loading published test vectors from Tests/VaultFormatTests/Vectors.

import Foundation
import Testing
import VaultFormat

/// Loads one published test vector, one JSON file per vector (STYLE.md section 7).
///
/// Every expected value in `Vectors/` is copied from the publication named in the
/// file's `source` field, never computed by this code base.
enum PublishedVectors {
    /// Decodes `Vectors/<name>.json` from the test bundle.
    static func load<V: Decodable>(_ name: String, as type: V.Type = V.self) throws -> V {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Vectors"),
            "missing test vector Vectors/\(name).json"
        )
        return try JSONDecoder().decode(V.self, from: Data(contentsOf: url))
    }
}

/// Hex text in a vector file, decoded.
struct HexBytes: Decodable, Sendable {
    let bytes: [UInt8]

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = Hex.decode(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad hex"))
        }
        self.bytes = bytes
    }
}

/// An Argon2id tag vector (RFC 9106 section 5.3, or the reference implementation's `test.c`).
struct Argon2idVector: Decodable, Sendable {
    let source: String
    let password: HexBytes
    let salt: HexBytes
    let secret: HexBytes
    let associatedData: HexBytes
    let memoryKiB: UInt32
    let iterations: UInt32
    let lanes: UInt32
    let tag: HexBytes
}

/// An AEAD vector: key, nonce, associated data, plaintext, ciphertext and tag.
struct AEADVector: Decodable, Sendable {
    let source: String
    let key: HexBytes
    let nonce: HexBytes
    let associatedData: HexBytes
    let plaintext: HexBytes
    let ciphertext: HexBytes
    let tag: HexBytes
}

/// A BLAKE2b vector; the digest length is the length of `digest`.
struct BLAKE2bVector: Decodable, Sendable {
    let source: String
    let key: HexBytes
    let message: HexBytes
    let digest: HexBytes
}
