// vaulttool tests: help text compared with full literal strings, so that any layout change shows in review.

import Testing

@Suite("Help")
struct HelpTests {
    @Test func rootHelp() throws {
        let result = try Tool.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: A portable, file-backed keychain (vault 0.1.0).

                USAGE: vaulttool <subcommand>

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  create                  Create a new, empty vault.
                  inspect                 Inspect a vault file without decrypting it.
                  verify                  Check the integrity of every item in a vault.
                  list                    List the items of a vault, without their secrets.
                  get                     Print the secret of one item.
                  set                     Add an item, or replace the secret of an existing one.
                  rm                      Remove an item from a vault.
                  passwd                  Change the password, or add or remove key-file and recovery keyslots.
                  rekey                   Replace the master key and seal every item again.
                  migrate                 Upgrade a vault's format and key derivation, or import another store into it.
                  import                  Import items from another password store's export.
                  export                  Write items and their secrets as plaintext JSON.
                  generate                Print a random password.
                  credential-helper       Serve git's or docker's credential-helper protocol from a vault.
                  completions             Print a shell completion script (bash or zsh).
                  backup                  Copy a vault to a new file, and check the copy.
                  device-secret           Create this machine's device secret, or print where it is.
                  agent                   Run the vault agent, which holds unlocked keys for this user's commands.
                  unlock                  Unlock a vault once and hand its keys to the vault agent.
                  lock                    Make the vault agent drop the keys of one vault, or of every vault.

                  See 'vaulttool help <subcommand>' for detailed help.

                """#
        )
    }

    @Test func inspectHelp() throws {
        let result = try Tool.run(["inspect", "--help"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Inspect a vault file without decrypting it.

                Shows the format version, vault ID, creation time, generation, keyslots and their KDF cost,
                item and deletion counts and section sizes, and checks the file's structure. Needs no password.
                Without a credential these values are unauthenticated: anyone who can write the file can
                change them. With a credential, the header MAC is checked too (a wrong one exits 3).
                With --items and a credential, adds one line per item (never a secret).

                USAGE: vaulttool inspect [<options>] <path>

                ARGUMENTS:
                  <path>                  The vault file to inspect.

                OPTIONS:
                  --json                  Print machine-readable output.
                  --items                 List the items too (needs a credential).
                  --password-file <file>  Read the password from a file.
                  --password-stdin        Read the password from standard input.
                  --password-env <name>   The password is the value of environment variable <name>.
                  --password-file-env <name>
                                          Read the password from the file named by environment variable <name>.
                  --key-file <file>       Use a key file as (part of) the credential.
                  --device-secret-file <file>
                                          This machine's 32-byte device secret.
                  -h, --help              Show help information.

                """#
        )
    }

    @Test func getHelp() throws {
        let result = try Tool.run(["get", "--help"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Print the secret of one item.

                Prints the raw secret to standard output, with no newline added. The options must
                select exactly one item; a missing item exits with status 2.
                --accessibility pins the protection class the caller expects: an item found with any
                other class is refused (status 1), since whoever holds only the vault's base key can
                put back an older copy of an item or swap its class.

                USAGE: vaulttool get [<options>] <vault>

                ARGUMENTS:
                  <vault>                 The vault file.

                OPTIONS:
                  --json                  Print the item and its secret as JSON.
                  --service <service>     The service (generic passwords).
                  --account <account>     The account.
                  --access-group <group>  The access group.
                  --server <server>       The server (internet passwords).
                  --protocol <protocol>   The protocol, such as https.
                  --port <port>           The port.
                  --path <path>           The path on the server.
                  --security-domain <domain>
                                          The security domain.
                  --authentication-type <type>
                                          The authentication type.
                  --label <label>         The label.
                  --class <class>         generic or internet.
                  --id <id>               The item ID (32 hex digits).
                  --accessibility <class>
                                          Refuse the item unless its protection class is <class>.
                  --password-file <file>  Read the password from a file.
                  --password-stdin        Read the password from standard input.
                  --password-env <name>   The password is the value of environment variable <name>.
                  --password-file-env <name>
                                          Read the password from the file named by environment variable <name>.
                  --key-file <file>       Use a key file as (part of) the credential.
                  --device-secret-file <file>
                                          This machine's 32-byte device secret.
                  -h, --help              Show help information.

                """#
        )
    }

    @Test func setHelp() throws {
        let result = try Tool.run(["set", "--help"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == #"""
                OVERVIEW: Add an item, or replace the secret of an existing one.

                The item is named by its primary key: service, account and access group for a generic
                password; server, account, protocol, port, path, security domain, authentication type and
                access group for an internet password. The secret is read from --secret-file, else from
                standard input when it is not a terminal (every byte, as is), else from a prompt without echo
                (asked after the vault password). An empty secret is refused unless --allow-empty is given:
                it is almost always a forgotten pipe or an unset variable.

                USAGE: vaulttool set [<options>] <vault>

                ARGUMENTS:
                  <vault>                 The vault file.

                OPTIONS:
                  --service <service>     The service (generic passwords).
                  --account <account>     The account.
                  --access-group <group>  The access group.
                  --server <server>       The server (internet passwords).
                  --protocol <protocol>   The protocol, such as https.
                  --port <port>           The port.
                  --path <path>           The path on the server.
                  --security-domain <domain>
                                          The security domain.
                  --authentication-type <type>
                                          The authentication type.
                  --class <class>         generic or internet (default: from the options).
                  --label <label>         A label for people.
                  --comment <comment>     A comment.
                  --description <text>    A description of the kind of item.
                  --accessibility <class>
                                          whenUnlocked (default), afterFirstUnlock, always, or a ThisDeviceOnly class.
                  --synchronizable        Mark the item synchronizable.
                  --secret-file <file>    Read the secret from a file.
                  --allow-empty           Store an empty secret instead of refusing it.
                  --password-file <file>  Read the password from a file.
                  --password-stdin        Read the password from standard input.
                  --password-env <name>   The password is the value of environment variable <name>.
                  --password-file-env <name>
                                          Read the password from the file named by environment variable <name>.
                  --key-file <file>       Use a key file as (part of) the credential.
                  --device-secret-file <file>
                                          This machine's 32-byte device secret.
                  --accept-rollback       Write even when the vault is older than one seen before here, and record it as the newest.
                  -h, --help              Show help information.

                """#
        )
    }

    @Test func helpSubcommand_equalsDashDashHelp() throws {
        for command in [
            "create", "verify", "list", "rm", "passwd", "rekey", "migrate", "import", "export", "generate",
            "create", "verify", "list", "rm", "passwd", "migrate", "import", "export", "generate", "credential-helper",
            "completions",
        ] {
            let help = try Tool.run(["help", command])
            #expect(help.status == 0)
            #expect(help.stdout.hasPrefix("OVERVIEW: "))
            #expect(help.stdout.hasSuffix("  -h, --help              Show help information.\n"))
            #expect(try Tool.run([command, "--help"]).stdout == help.stdout)
        }
    }
}
