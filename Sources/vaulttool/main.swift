// vaulttool: entry point.

import Foundation

exit(VaultTool.run(CredentialHelper.arguments(invokedAs: CommandLine.arguments)))
