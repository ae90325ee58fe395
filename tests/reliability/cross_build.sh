#!/usr/bin/env bash
# Compares what two fusecheck binaries (e.g. the RelWithDebInfo build and the
# ASan Debug build) print and write for every command of the determinism
# matrix (tests/reliability/determinism.py): same inputs, same folder, same
# environment (LC_ALL=C.UTF-8, TZ=UTC), byte for byte.
#
#   tests/reliability/cross_build.sh build/tools/fusecheck build-asan/tools/fusecheck
#
# Exit 0: identical; 1: differences (listed, with a diff of each); 2: usage.
# Not a CTest test: which two builds exist is the caller's business, and a
# golden-hash test would break on every intended output change.
set -euo pipefail
if [[ $# -ne 2 || ! -x "$1" || ! -x "$2" ]]; then
  echo "usage: $0 FUSECHECK_A FUSECHECK_B" >&2
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/fc-cross-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# ASan's leak checker and UBSan print nothing on success; keep their
# settings as the asan test preset has them.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for side in a b; do
  bin="$1"; [[ $side == b ]] && bin="$2"
  python3 "$here/determinism.py" --cli "$bin" --source-dir "$root" --work "$work/run" \
    --dump "$work/$side" >/dev/null
done
if diff -r "$work/a" "$work/b" >"$work/diff.txt"; then
  echo "cross_build: $(find "$work/a" -mindepth 2 -maxdepth 2 -type d | wc -l) cases, outputs of $1 and $2 are identical"
  exit 0
fi
echo "cross_build: outputs differ between $1 and $2:"
head -200 "$work/diff.txt"
exit 1
