// vaulttool: entry point.

import FoundationEssentials
import Glibc

exit(VaultTool.run(CredentialHelper.arguments(invokedAs: CommandLine.arguments)))
