// vaulttool: entry point.

import Foundation

exit(VaultTool.run(Array(CommandLine.arguments.dropFirst())))
