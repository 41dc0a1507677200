// vault: one import for apps: VaultIO re-exports VaultFormat.

// An app writes `import VaultIO` and nothing else: `Credentials`, `KDFParameters`,
// `ItemAttributes`, `ProtectionClass`, `SecretBytes`, `PasswordGenerator` and the other
// value types its calls take and return come from VaultFormat, so VaultIO re-exports it.
//
// Why the whole module rather than a typealias per type: a typealias list must be kept in
// step with VaultFormat by hand, a file importing both modules then sees two declarations
// of each name, and members declared in extensions would still need VaultFormat imported.
// VaultFormat stays a product of its own, importable alone by readers of the format
// (fuzzers, inspectors) who want no file I/O. What the re-export carries is exactly
// VaultFormat's public surface, so narrowing that surface (codec plumbing to `package`)
// narrows what apps see, with no change here.
@_exported public import VaultFormat
