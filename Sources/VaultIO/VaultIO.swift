// vault: VaultIO.
import VaultFormat
