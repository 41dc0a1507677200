// vaulttool secret-service: the two session algorithms (Spec/secret-service.md §4).

import CSecretService
import VaultIO

/// How secrets cross the bus in one session: as they are (`plain`) or under the key agreed by
/// `dh-ietf1024-sha256_aes128_cbc_pkcs7`.
package final class SessionCipher: @unchecked Sendable {
    package static let plainAlgorithm = "plain"
    package static let dhAlgorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// The AES key, `nil` for a plain session.
    private var key: [UInt8]?

    /// A plain session.
    package init() { key = nil }

    /// A DH session with the client's public value `peer`; `ours` is the value to answer with.
    package init(peer: [UInt8]) throws(BusError) {
        var exponent = [UInt8](repeating: 0, count: 128)
        var ours = [UInt8](repeating: 0, count: 128)
        var derived = [UInt8](repeating: 0, count: 16)
        defer { SecretMemory.wipe(&exponent) }
        guard vss_dh_keypair(&exponent, &ours) == 0 else { throw .failed("cannot make a DH key pair") }
        let ok = peer.withUnsafeBufferPointer { vss_dh_session_key(exponent, $0.baseAddress, $0.count, &derived) }
        guard ok == 0 else { throw .invalidArgs("the client's DH public value is not in the group") }
        key = derived
        publicValue = ours
    }

    /// A DH session with a given private exponent (test vectors).
    package init(exponent: [UInt8], peer: [UInt8]) throws(BusError) {
        var derived = [UInt8](repeating: 0, count: 16)
        var ours = [UInt8](repeating: 0, count: 128)
        guard exponent.count == 128, vss_dh_public(exponent, &ours) == 0 else { throw .failed("bad exponent") }
        let ok = peer.withUnsafeBufferPointer { vss_dh_session_key(exponent, $0.baseAddress, $0.count, &derived) }
        guard ok == 0 else { throw .invalidArgs("the client's DH public value is not in the group") }
        key = derived
        publicValue = ours
    }

    /// Whether secrets cross this session as they are.
    package var isPlain: Bool { key == nil }

    /// Our DH public value (128 bytes); empty for a plain session.
    package private(set) var publicValue: [UInt8] = []

    /// The session key (tests).
    package var sessionKey: [UInt8]? { key }

    deinit { close() }

    /// Wipes the key.
    package func close() {
        if key != nil { SecretMemory.wipe(&key!) }
    }

    /// `(parameters, value)` for `secret`.
    package func encrypt(_ secret: SecretBytes) throws(BusError) -> (parameters: [UInt8], value: [UInt8]) {
        guard let key else { return ([], secret.copyBytes()) }
        var iv = [UInt8](repeating: 0, count: 16)
        guard vss_random(&iv, 16) == 0 else { throw .failed("no random bytes") }
        var out = [UInt8](repeating: 0, count: secret.count + 16)
        let n = secret.withUnsafeBytes { plain in
            vss_aes_encrypt(key, iv, plain.bindMemory(to: UInt8.self).baseAddress, plain.count, &out)
        }
        guard n > 0 else { throw .failed("cannot encrypt the secret") }
        out.removeLast(out.count - n)
        return (iv, out)
    }

    /// The secret in `value`, refusing anything malformed with one message (R-SS-12).
    package func decrypt(parameters: [UInt8], value: [UInt8]) throws(BusError) -> SecretBytes {
        guard let key else {
            guard parameters.isEmpty else { throw .invalidArgs("a plain session takes no parameters") }
            return SecretBytes(bytes: value, protection: .guarded)
        }
        guard parameters.count == 16, !value.isEmpty, value.count % 16 == 0 else {
            throw .invalidArgs("the encrypted secret is malformed")
        }
        var out = [UInt8](repeating: 0, count: value.count + 16)
        defer { SecretMemory.wipe(&out) }
        let n = vss_aes_decrypt(key, parameters, value, value.count, &out)
        guard n >= 0 else { throw .invalidArgs("the encrypted secret is malformed") }
        return SecretBytes(bytes: out[..<n], protection: .guarded)
    }
}
