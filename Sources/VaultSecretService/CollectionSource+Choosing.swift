// vaulttool secret-service: which collections the provider serves, their names and credentials.

import VaultIO

extension CollectionSource {
    /// The collections of `vaults` (`nil`: the standard vault), each found by `locate` (its path,
    /// and whether it is the standard vault): names of R-SS-6, credentials of R-SS-3.
    ///
    /// The credentials `sources` name are read once for every vault; with none named, this
    /// user's device secret opens each vault it can, and the standard vault is served with empty
    /// credentials until its first `CreateItem` creates it and its device secret (R-SS-2). A
    /// vault with none of these stays locked until the agent or `Unlock` opens it.
    ///
    /// - Parameter deviceSecretFailed: Told the vault and the error when this user's device
    ///   secret cannot be read; that vault stays locked.
    package static func choosing(
        _ vaults: [String?],
        locate: (String?) throws -> (path: String, isStandard: Bool),
        credentials sources: CredentialSources,
        configuration: () throws -> VaultConfiguration,
        deviceSecretFailed: (String, any Error) -> Void
    ) throws -> [CollectionSource] {
        var taken: Set<String> = []
        var out: [CollectionSource] = []
        let named = sources.namesNoCredential ? nil : try sources.credentials()
        let configuration = try configuration()
        for vault in vaults {
            let (path, isStandard) = try locate(vault)
            var credentials = named
            if credentials == nil, let withDevice = sources.withUsersDeviceSecret {
                do {
                    credentials = try withDevice.credentials()
                } catch {
                    deviceSecretFailed(path, error)
                }
            } else if credentials == nil, isStandard, DeviceSecretFile.defaultPath != nil {
                credentials = Credentials()
            }
            var name = isStandard ? "login" : collectionName(path)
            let base = name
            var n = 2
            while taken.contains(name) {
                name = "\(base)_\(n)"
                n += 1
            }
            taken.insert(name)
            out.append(
                CollectionSource(
                    path: path,
                    name: name,
                    isStandard: isStandard,
                    credentials: credentials,
                    configuration: configuration
                )
            )
        }
        return out
    }

    /// R-SS-6: the file name without `.vault`, every byte outside `[A-Za-z0-9_]` as `_`.
    package static func collectionName(_ path: String) -> String {
        var file = String(path.split(separator: "/").last ?? "")
        if file.hasSuffix(".vault") { file.removeLast(6) }
        var name = String(
            decoding: file.utf8.map { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x5f ? b : 0x5f
            },
            as: UTF8.self
        )
        if name.isEmpty || name.first!.isNumber { name = "_" + name }
        return name
    }
}
