// vault: the remaining keychain attributes: description, creator, type, invisible, negative, generic.

public import FoundationEssentials
import VaultFormat

extension Keychain {
    // MARK: - Fluent configuration

    /// A copy that writes `text` as the items' description (`kSecAttrDescription`, KeychainAccess's
    /// `attributeDescription`).
    ///
    /// `nil` leaves an existing item's description as it is; the empty string removes it.
    public func attributeDescription(_ text: String?) -> Keychain {
        with(\.itemDescription, text)
    }

    /// A copy that writes `code` as the items' creator (`kSecAttrCreator`).
    ///
    /// `nil` leaves an existing item's creator as it is; `FourCharacterCode(rawValue: 0)` removes it.
    public func creator(_ code: FourCharacterCode?) -> Keychain {
        with(\.itemCreator, code)
    }

    /// A copy that writes `code` as the items' type (`kSecAttrType`) instead of the value's type code.
    ///
    /// Typed values record their type in this attribute (L-KC-4). An item whose type is a code of
    /// the app's own is read by length: `get(_:as: Int.self)` accepts any 8 bytes. `nil` writes
    /// the value's type code, unless the existing item carries a code of the app's own, which is kept.
    public func type(_ code: FourCharacterCode?) -> Keychain {
        with(\.itemType, code)
    }

    /// A copy that marks the items invisible (`kSecAttrIsInvisible`), or not; `nil` leaves the flag as stored.
    ///
    /// The flag is stored for the app and for tools; the library lists invisible items like any other.
    public func invisible(_ isInvisible: Bool? = true) -> Keychain {
        with(\.itemIsInvisible, isInvisible)
    }

    /// A copy that marks the items negative (`kSecAttrIsNegative`: "no password is stored for this
    /// account"), or not; `nil` leaves the flag as stored.
    public func negative(_ isNegative: Bool? = true) -> Keychain {
        with(\.itemIsNegative, isNegative)
    }

    /// A copy that writes `data` as the items' application data (`kSecAttrGeneric`, at most 32,768 bytes).
    ///
    /// `nil` leaves an existing item's data as it is; empty data removes it.
    public func generic(_ data: Data?) -> Keychain {
        with(\.itemGeneric, data.map { Array($0) })
    }

    /// A copy that stores empty values, or refuses them (the default): see ``EmptyValuePolicy``.
    public func emptyValues(_ policy: EmptyValuePolicy) -> Keychain {
        with(\.emptyValuePolicy, policy)
    }

    // MARK: - Applying

    /// Writes the attributes this keychain sets over `attributes`, and the type code.
    ///
    /// - Parameter valueType: The type code of the value being written.
    func applyConfiguredAttributes(to attributes: inout ItemAttributes, valueType: UInt32) {
        if let itemType {
            attributes.type = itemType.rawValue
        } else if attributes.type == 0 || KeychainValueCodec.isLibraryCode(attributes.type) {
            attributes.type = valueType
        }  // else: the existing item carries a code of the app's own, which is kept
        if let itemLabel { attributes.label = itemLabel }
        if let itemComment { attributes.comment = itemComment }
        if let itemDescription { attributes.itemDescription = itemDescription }
        if let itemCreator { attributes.creator = itemCreator.rawValue }
        if let itemIsInvisible { attributes.isInvisible = itemIsInvisible }
        if let itemIsNegative { attributes.isNegative = itemIsNegative }
        if let itemGeneric { attributes.generic = itemGeneric }
    }
}

/// Whether a ``Keychain`` stores an empty string or empty data.
///
/// Spec: Spec/library-semantics.md, "Keychain decisions" (L-KC-7).
public enum EmptyValuePolicy: Sendable, Hashable {
    /// ``Keychain/set(_:forKey:)-372fz`` throws ``KeychainError/emptyValue`` for an empty
    /// string or empty data, as Valet does and as `vaulttool set` refuses empty input.
    case refuse
    /// Empty values are stored and read back as empty (KeychainAccess, SwiftKeychainWrapper).
    case store
}
