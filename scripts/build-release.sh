#!/usr/bin/env bash
# The release vaulttool, linked for a fast start (issue 24; BENCHMARKS.md, "A lean process"):
# - the Swift runtime and libstdc++ linked in (`--static-swift-stdlib`; libstdc++ from the
#   toolchain's GCC, under GCC's runtime library exception): loading libstdc++.so and binding
#   its symbols took about a third of a `vaulttool --version`;
# - linked by lld (it ships with the toolchain) with packed relative relocations (DT_RELR,
#   glibc 2.36): still a position-independent executable, so ASLR holds, with a relocation
#   table of 8 KB instead of 985 KB, and with full RELRO (`-z now`: every symbol bound at start,
#   the relocated data read-only after);
# - no RUNPATH: the loader does not look beside the binary (`$ORIGIN`) for libsodium, so a
#   library dropped in the binary's directory is never loaded, and the start does not search
#   there (16 failed opens);
# - no exported symbol table (`--no-export-dynamic`; the Swift runtime's link file asks for one,
#   for backtraces, which vaulttool turns off): 330 KB less to map;
# - each function in a section of its own (`-function-sections`), and the functions the hot
#   commands run laid out together (scripts/release/vaulttool.order,
#   written by scripts/order-file.sh), so a `get` touches a few hundred KB of code, not 6 MB;
# - without symbols.
# Usage: scripts/build-release.sh [--keep-symbols] [extra swift build arguments]
# Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
strip=(-Xlinker --strip-all)
if [[ "${1:-}" == --keep-symbols ]]; then
    strip=()
    shift
fi
# -lstdc++ (from the Swift runtime's link file) finds libstdc++.a first in this directory.
libstdcxx="$(clang -print-file-name=libstdc++.a)"
[[ -f "$libstdcxx" ]] || { echo "libstdc++.a not found (install libstdc++-12-dev)" >&2; exit 1; }
# A build folder of its own: these flags never mix with `swift build`'s objects.
scratch=".build/lean"
static="$scratch/static-libs"
mkdir -p "$static"
ln -sf "$libstdcxx" "$static/libstdc++.a"
flags=(
    -c release --static-swift-stdlib --product vaulttool --disable-local-rpath --scratch-path "$scratch"
    -Xswiftc -L -Xswiftc "$PWD/$static"
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
    -Xlinker -z -Xlinker pack-relative-relocs -Xlinker -z -Xlinker now
    -Xlinker --no-export-dynamic
    -Xlinker "--symbol-ordering-file=$PWD/scripts/release/vaulttool.order" -Xlinker --no-warn-symbol-ordering
)
# A changed link flag alone does not make SwiftPM link again.
rm -f "$(swift build "${flags[@]}" --show-bin-path)/vaulttool"
swift build "${flags[@]}" "${strip[@]}" "$@" >&2
echo "$(swift build "${flags[@]}" --show-bin-path)/vaulttool"
