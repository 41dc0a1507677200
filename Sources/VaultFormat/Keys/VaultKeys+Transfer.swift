// vault: handing a vault's unlocked keys from one process to another (the vault agent).

extension VaultKeys {
    /// Rebuilds the keys a keyslot produced from the keys it wrapped, without any KDF.
    ///
    /// Package-visible only: the agent of `vaulttool` hands keys between its own
    /// processes; embedders reach items through snapshots and transactions.
    ///
    /// Spec: Spec/agent.md, "Key material".
    package static func restoring(
        master: MasterKey?,
        base: BaseKey,
        deviceSecret: DeviceSecret?,
        vaultID: [UInt8]
    ) -> VaultKeys {
        VaultKeys(master: master, base: base, deviceSecret: deviceSecret, vaultID: vaultID)
    }
}
