// vaulttool tests: the help of the recovery commands, as full literal strings.

import Testing

@Suite("Help: backup and device-secret")
struct RecoveryHelpTests {
    @Test func backupHelp() throws {
        let result = try Tool.run(["backup", "--help"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Copy a vault to a new file, and check the copy.

                Copies the vault byte for byte to <destination> (default: <vault>.backup-<UTC time>,
                next to it), created new with mode 0600 and synced to disk, then reads the copy back and
                checks it: the same bytes, a sound header and layout, and with a credential also the
                header MAC and the index. An existing file is never replaced. Records are copied as they
                are, so a vault with a damaged item can be backed up before it is repaired.

                Recovering a damaged vault: 'vaulttool verify' names every damaged item; make a backup;
                'vaulttool list --salvage' and 'vaulttool export --salvage' read every other item;
                'vaulttool rm --id <id>' removes a damaged item without decrypting it. When the header
                or index is damaged, no item can be read: put a backup in place of the vault.

                USAGE: vaulttool backup [<options>] <vault> [<destination>]

                ARGUMENTS:
                  <vault>                 The vault file to copy.
                  <destination>           The new file (default: <vault>.backup-<UTC time>).

                OPTIONS:
                  --password-file <file>  Read the password from a file (one trailing newline dropped).
                  --password-stdin        Read the password from standard input (one trailing newline dropped).
                  --password-env <name>   The password is the value of environment variable <name>.
                  --password-file-env <name>
                                          Read the password from the file named by environment variable <name>.
                  --key-file <file>       Use a key file as (part of) the credential.
                  --device-secret-file <file>
                                          This machine's 32-byte device secret.
                  --identity <file>       An identity file (format 1.2 recipients).
                  --tpm2                  Unseal a TPM2 keyslot with this machine's TPM (PIN from VAULTTOOL_TPM2_PIN_FILE or a prompt).
                  --tpm2-tcti <tcti>      The TPM to use (default $VAULT_TPM2_TCTI, else device:/dev/tpmrm0).
                  -h, --help              Show help information.

                EXAMPLES:
                  vaulttool backup --password-file pw app.vault
                  vaulttool backup app.vault /mnt/backups/app.vault

                """#
        )
    }

    @Test func deviceSecretHelp() throws {
        let result = try Tool.run(["device-secret", "--help"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Create this machine's device secret, or print where it is.

                'init' creates 32 random bytes in a new file with mode 0600 (directories 0700), and never
                replaces an existing one: items of the ThisDeviceOnly classes sealed with a secret are
                lost with it. 'path' prints where the secret is looked for. The place is <file> when
                given, else $VAULTTOOL_DEVICE_SECRET_FILE, else $XDG_DATA_HOME/vault/device-secret
                (~/.local/share/vault/device-secret), which is also where the library's standard vault
                looks. Commands use a device secret only when given one with --device-secret-file or
                VAULTTOOL_DEVICE_SECRET_FILE. Keep it out of backups and synced folders.

                With --tpm2, 'init' writes the secret sealed by this machine's TPM instead: the file
                holds only what the TPM can unseal, so a copy of the home directory is no device, and
                a cleared TPM loses the ThisDeviceOnly items as a deleted file would.

                USAGE: vaulttool device-secret [<options>] <action> [<file>]

                ARGUMENTS:
                  <action>                init or path.
                  <file>                  The device-secret file (default: see above).

                OPTIONS:
                  --tpm2                  With init: seal the secret by this machine's TPM, so a copy of the file is no device.
                  --tpm2-pcrs <list>      With --tpm2: bind to these SHA-256 PCRs, such as 7.
                  --tpm2-tcti <tcti>      The TPM (default $VAULT_TPM2_TCTI, else device:/dev/tpmrm0).
                  -h, --help              Show help information.

                EXAMPLES:
                  vaulttool device-secret init
                  vaulttool device-secret init --tpm2
                  vaulttool device-secret path

                """#
        )
    }
}
