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
                OVERVIEW: A portable, file-backed keychain (vault 0.2.0).

                USAGE: vaulttool <subcommand>

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  create                  Create a new, empty vault.
                  inspect                 Inspect a vault file without decrypting it.
                  verify                  Check the integrity of every item in a vault.
                  list, ls                List the items of a vault, without their secrets.
                  get                     Print the secret of one item.
                  set                     Add an item, or replace the secret of an existing one.
                  rm, remove              Remove an item from a vault.
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
                  keygen                  Create an identity file for opening vaults as a recipient.
                  recipients              List, add or remove the public keys that open a vault.
                  agent                   Run the vault agent, which holds unlocked keys for this user's commands.
                  unlock                  Unlock a vault once and hand its keys to the vault agent.
                  lock                    Make the vault agent drop the keys of one vault, or of every vault.
                  merge                   Merge other copies of a vault into it.
                  git-merge               Merge vault files for git (merge driver: vaulttool git-merge %O %A %B %P).
                  git-diff                Print a vault as sorted item-level text for git diff (a textconv driver).
                  git-setup               Set a git repository up to merge and diff vault files with vaulttool.
                  inject                  Render a template, replacing {{ vault://… }} references with secrets.
                  help                    Show help information for a subcommand.

                EXIT STATUS:
                  0                       Success.
                  1                       Any other failure (the vault exists, several items match, duplicates, ...).
                  2                       The item or keyslot asked for does not exist.
                  3                       No keyslot opens with the credential given.
                  4                       The file is damaged, tampered with, not a vault, or older than one seen before.
                  5                       The file needs a newer vaulttool.
                  6                       Another program holds the write lock, or changed the vault meanwhile.
                  7                       A file-system call failed.
                  64                      The command line is wrong.

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
                  --password-file <file>  Read the password from a file (one trailing newline dropped).
                  --password-stdin        Read the password from standard input (one trailing newline dropped).
                  --password-env <name>   The password is the value of environment variable <name>.
                  --password-file-env <name>
                                          Read the password from the file named by environment variable <name>.
                  --key-file <file>       Use a key file as (part of) the credential.
                  --device-secret-file <file>
                                          This machine's 32-byte device secret.
                  --identity <file>       An identity file (format 1.2 recipients).
                  -h, --help              Show help information.

                EXAMPLES:
                  vaulttool inspect app.vault
                  vaulttool inspect --json --items --password-file pw app.vault

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

                Prints the raw secret to standard output: with no newline added when standard output is
                a pipe or a file, and followed by a newline on a terminal. The options must select
                exactly one item; a missing item exits with status 2, several with status 1.
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
                  --server <server>       The server (internet passwords; compared without case).
                  --protocol <protocol>   The protocol, such as https.
                  --port <port>           The port (0: none).
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
                  --password-file <file>  Read the password from a file (one trailing newline dropped).
                  --password-stdin        Read the password from standard input (one trailing newline dropped).
                  --password-env <name>   The password is the value of environment variable <name>.
                  --password-file-env <name>
                                          Read the password from the file named by environment variable <name>.
                  --key-file <file>       Use a key file as (part of) the credential.
                  --device-secret-file <file>
                                          This machine's 32-byte device secret.
                  --identity <file>       An identity file (format 1.2 recipients).
                  -h, --help              Show help information.

                EXAMPLES:
                  vaulttool get --password-file pw --service db --account app app.vault
                  DB_PASSWORD="$(vaulttool get --password-env VAULT_PASSWORD --service db --account app app.vault)"

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
                that ends in one. A secret holds at most 16 MiB.

                Accessibility classes: whenUnlocked (the default), afterFirstUnlock, always, and the
                ThisDeviceOnly classes whenUnlockedThisDeviceOnly, afterFirstUnlockThisDeviceOnly,
                alwaysThisDeviceOnly and whenPasscodeSetThisDeviceOnly, which need this machine's device
                secret (--device-secret-file) to read and are left out of exports.

                USAGE: vaulttool set [<options>] <vault>

                ARGUMENTS:
                  <vault>                 The vault file.

                OPTIONS:
                  --service <service>     The service (generic passwords).
                  --account <account>     The account.
                  --access-group <group>  The access group.
                  --server <server>       The server (internet passwords; compared without case).
                  --protocol <protocol>   The protocol, such as https.
                  --port <port>           The port (0: none).
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
                  --secret-file <file>    Read the secret from a file (every byte, at most 16 MiB).
                  --allow-empty           Store an empty secret instead of refusing it.
                  --trim-newline          Remove one trailing newline from the secret.
                  --password-file <file>  Read the password from a file (one trailing newline dropped).
                  --password-stdin        Read the password from standard input (one trailing newline dropped).
                  --password-env <name>   The password is the value of environment variable <name>.
                  --password-file-env <name>
                                          Read the password from the file named by environment variable <name>.
                  --key-file <file>       Use a key file as (part of) the credential.
                  --device-secret-file <file>
                                          This machine's 32-byte device secret.
                  --identity <file>       An identity file (format 1.2 recipients).
                  --accept-rollback       Write even when the vault is older than one seen before here, and record it as the newest.
                  -h, --help              Show help information.

                EXAMPLES:
                  vaulttool generate | vaulttool set --password-file pw --service db --account app app.vault
                  vaulttool set --password-file pw --server github.com --account ci --secret-file token app.vault

                """#
        )
    }

    @Test func generateHelp() throws {
        let result = try Tool.run(["generate", "--help"])
        #expect(result.status == 0)
        #expect(
            result.stdout == #"""
                OVERVIEW: Print a random password.

                By default: four groups of three letters and digits without look-alikes (xxx-xxx-xxx-xxx),
                about 70 bits. With --length or --alphabet: that many characters from that alphabet
                (default alphabet: letters and digits without look-alikes; default length: 20).
                A single password ends with a newline only when standard output is a terminal and -n is
                not given, so that 'vaulttool generate | vaulttool set ...' stores no newline; with
                --count above 1 every password is on its own line.

                USAGE: vaulttool generate [<options>]

                OPTIONS:
                  --length <n>            The number of characters (1 to 4096).
                  --alphabet <characters>
                                          The characters to draw from.
                  --count <n>             How many passwords to print (default 1).
                  -n, --no-newline        Never end a single password with a newline.
                  -h, --help              Show help information.

                EXAMPLES:
                  vaulttool generate
                  vaulttool generate --length 32 --count 3

                """#
        )
    }

    @Test func importHelp() throws {
        let result = try Tool.run(["import", "--help"])
        #expect(result.status == 0)
        #expect(
            result.stdout == #"""
                OVERVIEW: Import items from another password store's export.

                Reads a KeePassXC XML or CSV export, a Bitwarden unencrypted JSON export, or the generic
                JSON or CSV layout (Spec/cli.md), and adds every entry as a keychain item in one atomic
                write. Prints what was imported, what was skipped and why. Same as 'vaulttool migrate --from'.

                Entries with the same primary key in different groups (folders) are kept apart: each gets
                its group path as access group. When entries are still duplicates (of each other, or of
                items already in the vault without --replace), nothing is imported and the exit status is 1,
                unless --skip-duplicates is given. With --create a missing vault is created first, with the
                credential and KDF options of 'vaulttool create'.

                USAGE: vaulttool import [<options>] <file> <vault>

                ARGUMENTS:
                  <file>                  The export to read.
                  <vault>                 The vault to add the items to (see --create).

                OPTIONS:
                  --from <format>         keepassxc-xml, keepassxc-csv, bitwarden-json, json or csv.
                  --accessibility <class>
                                          Accessibility of imported items (default whenUnlocked).
                  --replace               Replace items that are already in the vault.
                  --skip-duplicates       Import the rest when some entries are duplicates (else nothing is imported).
                  --create                Create the vault first if it does not exist.
                  --dry-run               Show what would happen; change nothing.
                  --json                  Print the summary as JSON.
                  --password-file <file>  Read the password from a file (one trailing newline dropped).
                  --password-stdin        Read the password from standard input (one trailing newline dropped).
                  --password-env <name>   The password is the value of environment variable <name>.
                  --password-file-env <name>
                                          Read the password from the file named by environment variable <name>.
                  --key-file <file>       Use a key file as (part of) the credential.
                  --device-secret-file <file>
                                          This machine's 32-byte device secret.
                  --identity <file>       An identity file (format 1.2 recipients).
                  --kdf <preset>          interactive (default), moderate or sensitive.
                  --kdf-memory <KiB>      Argon2id memory in KiB (at least 19456).
                  --kdf-iterations <n>    Argon2id passes (2 to 16).
                  --kdf-lanes <n>         Argon2id lanes (1 to 8).
                  --kdf-target-ms <ms>    Raise passes until one unlock takes about <ms> here (measured).
                  --accept-rollback       Write even when the vault is older than one seen before here, and record it as the newest.
                  -h, --help              Show help information.

                EXAMPLES:
                  vaulttool import --create --password-file pw --from keepassxc-xml export.xml app.vault
                  vaulttool import --skip-duplicates --password-file pw --from csv items.csv app.vault

                """#
        )
    }

    @Test func listHelp_namesItsAlias() throws {
        let result = try Tool.run(["ls", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\nALIASES: ls\n"))
        #expect(try Tool.run(["help", "remove"]).stdout.contains("\nALIASES: remove\n"))
    }

    /// Issue 12: examples in every command's help.
    @Test func everyCommand_hasExamples_thatRunThisTool() throws {
        let root = try Tool.run(["--help"]).stdout
        let names = root.components(separatedBy: "SUBCOMMANDS:\n")[1].components(separatedBy: "\n\n")[0]
            .split(separator: "\n").map { $0.split(separator: " ")[0].trimmingCharacters(in: .punctuationCharacters) }
        #expect(names.count >= 13)
        for name in names where name != "help" {
            let help = try Tool.run([name, "--help"]).stdout
            let examples = try #require(help.components(separatedBy: "\nEXAMPLES:\n").last, "\(name)")
            #expect(help.contains("\nEXAMPLES:\n"), "\(name) --help has no examples")
            #expect(examples.split(separator: "\n").allSatisfy { $0.hasPrefix("  ") && $0.contains("vaulttool ") })
        }
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
            #expect(help.stdout.contains("  -h, --help              Show help information.\n"))
            #expect(try Tool.run([command, "--help"]).stdout == help.stdout)
        }
    }
}
