// vault: libsodium bindings. Only the public header; no helpers are needed.
#include <sodium.h>
