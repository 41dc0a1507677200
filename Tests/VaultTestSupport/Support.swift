// vault: shared test helpers.
@_exported import VaultFormat
