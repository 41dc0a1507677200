// libxml2's parser and tree, for KeePass XML imports (Sources/VaultImport/Formats/XMLTree.swift).
#include <libxml/parser.h>
#include <libxml/tree.h>
