// KeePass XML read with libxml2, loaded with dlopen when an export is read, not at every vaulttool
// start (Lazy.c); libxml2's types stay in C.
#pragma once

#include <stddef.h>
#include <stdint.h>

/// What a walk of a document calls, in document order.
struct vault_xml_handlers {
    /// An element starts: its name, and its attributes as name, value, ..., NULL.
    void (*start)(void *context, const char *name, const char *const *attributes);
    /// Text or CDATA directly inside the element that started last.
    void (*text)(void *context, const char *text);
    /// The element that started last ends.
    void (*end)(void *context);
};

enum {
    VAULT_XML_OK = 0,
    /// Not well-formed: `*error_code` is libxml2's error number, `*error_line` its line (0 unknown).
    VAULT_XML_MALFORMED = 1,
    /// The document has a document type declaration (refused: no entity expansion).
    VAULT_XML_DOCTYPE = 2,
    /// libxml2 cannot be loaded: `vault_xml_load_error()` says why.
    VAULT_XML_UNAVAILABLE = 3,
};

/// Parses `bytes` (no network access, no messages on stderr) and walks the element tree.
int vault_xml_walk(const uint8_t *bytes, size_t count, const struct vault_xml_handlers *handlers, void *context,
                   int *error_code, int *error_line);

/// Why libxml2 could not be loaded (after VAULT_XML_UNAVAILABLE).
const char *vault_xml_load_error(void);
