// sd-bus for the Secret Service fuzz target's client side (libsystemd-dev).
#include <systemd/sd-bus.h>
