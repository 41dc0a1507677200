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
                  migrate                 Upgrade a vault's format and key derivation, or import another store into it.
                  import                  Import items from another password store's export.
                  export                  Write items and their secrets as plaintext JSON.
                  generate                Print a random password.
                  completions             Print a shell completion script (bash or zsh).
                  help                    Show help information for a subcommand.

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
                it is almost always a forgotten pipe or an unset variable. --trim-newline removes one
                trailing newline (LF or CRLF) from the secret, for secrets piped from 'echo' or a file
                that ends in one.

                Example: vaulttool generate | vaulttool set --password-file pw --service db --account app v.vault

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
                  --trim-newline          Remove one trailing newline from the secret.
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

    @Test func helpSubcommand_equalsDashDashHelp() throws {
        for command in [
            "create", "verify", "list", "rm", "passwd", "migrate", "import", "export", "generate", "completions",
        ] {
            let help = try Tool.run(["help", command])
            #expect(help.status == 0)
            #expect(help.stdout.hasPrefix("OVERVIEW: "))
            #expect(help.stdout.hasSuffix("  -h, --help              Show help information.\n"))
            #expect(try Tool.run([command, "--help"]).stdout == help.stdout)
        }
    }
}
