// KeePass XML read with libxml2, loaded with dlopen on first use: loading it (and the ICU it links)
// at process start cost about 2 ms of every vaulttool run (BENCHMARKS.md). Each libxml2 function
// used is defined here under its own name (libxml2's headers check each signature) and forwards
// to the library's; the tree is handed to Swift through callbacks, so no libxml2 type leaves C.
#include "CVaultXML.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

static void *handle;
static char load_error[512];

static int load(void) {
    if (!handle) handle = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) snprintf(load_error, sizeof load_error, "%s", dlerror());
    return handle != NULL;
}

const char *vault_xml_load_error(void) { return load_error; }

static void *symbol(const char *name) {
    void *p = load() ? dlsym(handle, name) : NULL;
    if (!p) {
        dprintf(2, "vaulttool: cannot use %s from libxml2.so.2 (install libxml2)\n", name);
        _exit(127);
    }
    return p;
}

// Hidden: only this program's calls reach the stubs (see Sources/CSecretService/Lazy.c).
#define FORWARD(ret, name, params, args)                                                                  \
    __attribute__((visibility("hidden"))) ret name params {                                                                                   \
        static ret(*forward) params;                                                                    \
        if (!forward) forward = (ret(*) params)symbol(#name);                                           \
        return forward args;                                                                            \
    }
#define FORWARD_VOID(name, params, args)                                                                  \
    __attribute__((visibility("hidden"))) void name params {                                                                                  \
        static void(*forward) params;                                                                   \
        if (!forward) forward = (void(*) params)symbol(#name);                                          \
        forward args;                                                                                   \
    }

FORWARD(xmlParserCtxtPtr, xmlNewParserCtxt, (void), ())
FORWARD_VOID(xmlFreeParserCtxt, (xmlParserCtxtPtr ctxt), (ctxt))
FORWARD(xmlDocPtr, xmlCtxtReadMemory,
        (xmlParserCtxtPtr ctxt, const char *buffer, int size, const char *URL, const char *encoding, int options),
        (ctxt, buffer, size, URL, encoding, options))
FORWARD_VOID(xmlFreeDoc, (xmlDocPtr cur), (cur))
FORWARD(xmlNodePtr, xmlDocGetRootElement, (const xmlDoc *doc), (doc))

/// Attributes with more than this many entries are cut (KeePass elements have one or two).
#define MAX_ATTRIBUTES 64

static void walk(xmlNodePtr node, const struct vault_xml_handlers *h, void *context) {
    const char *attributes[2 * MAX_ATTRIBUTES + 1];
    int n = 0;
    for (xmlAttrPtr a = node->properties; a && n < MAX_ATTRIBUTES; a = a->next) {
        // An attribute's value is its text children; KeePass attributes have one.
        xmlNodePtr text = a->children;
        attributes[2 * n] = (const char *)a->name;
        attributes[2 * n + 1] = text && text->content ? (const char *)text->content : "";
        n++;
    }
    attributes[2 * n] = NULL;
    h->start(context, (const char *)node->name, attributes);
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type == XML_ELEMENT_NODE) {
            walk(c, h, context);
        } else if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
            h->text(context, (const char *)c->content);
        }
    }
    h->end(context);
}

int vault_xml_walk(const uint8_t *bytes, size_t count, const struct vault_xml_handlers *handlers, void *context,
                   int *error_code, int *error_line) {
    *error_code = 0;
    *error_line = 0;
    if (!load()) return VAULT_XML_UNAVAILABLE;
    if (count > INT_MAX) return VAULT_XML_MALFORMED;
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) return VAULT_XML_MALFORMED;
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, (const char *)bytes, (int)count, NULL, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    int r = VAULT_XML_OK;
    if (!doc) {
        *error_code = ctxt->lastError.code;
        *error_line = ctxt->lastError.line;
        r = VAULT_XML_MALFORMED;
    } else if (doc->intSubset || doc->extSubset) {
        r = VAULT_XML_DOCTYPE;
    } else {
        xmlNodePtr root = xmlDocGetRootElement(doc);
        if (root) walk(root, handlers, context);
        else r = VAULT_XML_MALFORMED;
    }
    if (doc) xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    return r;
}
