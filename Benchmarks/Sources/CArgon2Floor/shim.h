// vault-bench: libargon2, called directly for the unlock floor.
#include <argon2.h>
