// vaulttool: the EXAMPLES section of every command's help.

/// Example command lines, by command name, shown at the end of `--help`.
///
/// They live in one table rather than in each command's configuration so that a test can
/// check that every command has some, and so that the examples read as a set.
/// Spec: Spec/cli.md, "Help".
enum Examples {
    static let byCommand: [String: [String]] = [
        "create": [
            "vaulttool create --password-file pw app.vault",
            "vaulttool create --key-file app.key --kdf-target-ms 500 app.vault",
        ],
        "inspect": [
            "vaulttool inspect app.vault",
            "vaulttool inspect --json --items --password-file pw app.vault",
        ],
        "verify": ["vaulttool verify --password-file pw app.vault"],
        "list": [
            "vaulttool list --password-file pw app.vault",
            "vaulttool ls --json --server github.com --password-env VAULT_PASSWORD app.vault",
        ],
        "get": [
            "vaulttool get --password-file pw --service db --account app app.vault",
            "DB_PASSWORD=\"$(vaulttool get --password-env VAULT_PASSWORD --service db --account app app.vault)\"",
        ],
        "set": [
            "vaulttool generate | vaulttool set --password-file pw --service db --account app app.vault",
            "vaulttool set --password-file pw --server github.com --account ci --secret-file token app.vault",
        ],
        "rm": ["vaulttool rm --password-file pw --service db --account app app.vault"],
        "passwd": [
            "vaulttool passwd --password-file old-pw --new-password-file new-pw app.vault",
            "vaulttool passwd --password-file pw --add-key-file app.key app.vault",
            "vaulttool passwd --password-file pw --add-tpm2 --tpm2-pcrs 7 app.vault",
        ],
        "keygen": [
            "vaulttool keygen ~/.config/vault/identity",
            "vaulttool keygen --recipient-of ~/.config/vault/identity",
        ],
        "recipients": [
            "vaulttool recipients add --password-file pw --recipient VAULT-RECIPIENT-1:... --name ci team.vault",
            "vaulttool recipients rm --password-file pw --name ci team.vault",
            "vaulttool get --identity ~/.config/vault/identity --service db --account app team.vault",
        ],
        "migrate": [
            "vaulttool migrate --password-file pw --dry-run app.vault",
            "vaulttool migrate --password-file pw --from keepassxc-xml export.xml app.vault",
        ],
        "import": [
            "vaulttool import --create --password-file pw --from keepassxc-xml export.xml app.vault",
            "vaulttool import --skip-duplicates --password-file pw --from csv items.csv app.vault",
        ],
        "export": ["vaulttool export --password-file pw --output items.json app.vault"],
        "generate": [
            "vaulttool generate",
            "vaulttool generate --length 32 --count 3",
        ],
        "completions": [
            "eval \"$(vaulttool completions bash)\"",
            "vaulttool completions zsh > \"${fpath[1]}/_vaulttool\"",
        ],
        "merge": [
            "vaulttool merge --password-file pw app.vault app.sync-conflict-20261201-101500-ABCDEFG.vault",
            "vaulttool merge --password-file pw --remove-merged app.vault 'app (conflicted copy).vault'",
            "vaulttool merge --password-file pw --base base.vault --output merged.vault ours.vault theirs.vault",
        ],
        "git-merge": [
            "git config merge.vault.driver 'vaulttool git-merge %O %A %B %P'",
            "VAULTTOOL_PASSWORD_FILE=pw vaulttool git-merge base.vault ours.vault theirs.vault",
        ],
        "rekey": [
            "vaulttool rekey --password-file pw app.vault",
            "vaulttool rekey --password-file pw --keep-password-file recovery-pw --drop-foreign app.vault",
        ],
        "backup": [
            "vaulttool backup --password-file pw app.vault",
            "vaulttool backup app.vault /mnt/backups/app.vault",
        ],
        "device-secret": [
            "vaulttool device-secret init",
            "vaulttool device-secret init --tpm2",
            "vaulttool device-secret path",
        ],
        "credential-helper": [
            "git config --global credential.helper '!vaulttool credential-helper git --vault ~/app.vault --password-file ~/pw'",
            "printf '%s' https://registry.example.com | vaulttool credential-helper docker get",
        ],
        "credential-server": [
            "vaulttool credential-server --config /etc/vault/credentials.conf --vault /etc/vault/host.vault --key-file /etc/vault/host.key",
            "vaulttool credential-server --config creds.conf --socket /run/vault-credentials/creds.sock --password-file pw",
        ],
        "agent": [
            "eval \"$(vaulttool agent)\"",
            "vaulttool agent --foreground --socket /run/vault/agent.sock",
            "vaulttool agent --status",
        ],
        "unlock": ["vaulttool unlock --password-file pw app.vault"],
        "lock": [
            "vaulttool lock app.vault",
            "vaulttool lock",
        ],
        "git-diff": [
            "git config diff.vault.textconv 'vaulttool git-diff --password-file ~/.config/vault/pw'",
            "vaulttool git-diff --password-file pw app.vault",
        ],
        "git-setup": [
            "vaulttool git-setup",
            "vaulttool git-setup --dry-run --password-file ~/.config/vault/pw 'secrets/*.vault'",
        ],
        "secret-service": [
            "vaulttool secret-service",
            "vaulttool secret-service --vault team.vault --key-file team.key --replace",
            "vaulttool secret-service --install",
        ],
        "inject": [
            "vaulttool inject --vault /etc/app/app.vault --key-file /etc/app/key -i config.yml.tmpl -o config.yml",
            "vaulttool inject --dry-run -i config.yml.tmpl",
            "printf 'DB_PASSWORD={{ vault://db/app }}\\n' | vaulttool inject --password-file pw > app.env",
        ],
        "run": [
            "vaulttool run --vault ci.vault --identity \"$RUNNER_IDENTITY\" --env NPM_TOKEN=vault://registry/ci -- npm publish",
            "DB_PASSWORD=vault://db/app vaulttool run --vault prod.vault -- ./server --port 8080",
            "vaulttool run --env-file app.env --file TLS_KEY=vault://tls/app -- sh -c 'exec ./server --key \"$TLS_KEY\"'",
        ],
    ]
}
