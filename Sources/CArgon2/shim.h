// vault: libargon2 (reference implementation) bindings.
#include <argon2.h>
