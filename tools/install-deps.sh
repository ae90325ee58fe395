#!/usr/bin/env bash
# Installs the Debian 12 packages fusecheck needs to build, test and lint.
# THE one list: README's commands (tools/dev) and CI (.ci/run) call this.
# Idempotent: asks apt only for what is missing (dpkg-query), so a second
# run costs a fraction of a second and needs no network.
#
#   tools/install-deps.sh            install what is missing
#   tools/install-deps.sh --check    list what is missing, exit 1 if anything is
#   tools/install-deps.sh --list     print the package list
#   FC_APT_UPDATE=always             run `apt-get update` even when nothing is missing (CI)
set -euo pipefail

packages=(
  # toolchain
  cmake ninja-build g++ ccache pkg-config
  # the linker (CMake option FC_USE_LLD): links the test binaries five times faster than ld.bfd
  lld
  # libraries (Debian versions: nlohmann 3.11.2, simdjson 3.0.1, CLI11 2.1.2)
  nlohmann-json3-dev libsimdjson-dev libcli11-dev libgraphviz-dev
  # the CLI's allocator (huge-page heap for million-expr repros; optional in CMake)
  libmimalloc-dev
  # .npz tensor files of `run --inputs` / `--save-*` (optional in CMake)
  libzip-dev
  # the Python package (pybind11 module for /usr/bin/python3), its tests (pytest) and the torch
  # oracle of the differential runner (Debian's torch 1.13, CPU)
  pybind11-dev python3-dev python3-numpy python3-pytest python3-torch
  # tests and benchmarks
  libgtest-dev libbenchmark-dev graphviz python3 python3-jsonschema
  # the determinism test compiles de_DE.UTF-8 (comma decimals) with localedef
  locales
  # lint (CI: clang-format check, clang-tidy)
  clang-tidy clang-format
  # the sanitizer build and its fuzzers (preset asan, tools/dev fuzz): clang 14, its sanitizer runtimes (only recommended
  # by clang-14, so named here for --no-install-recommends) and libFuzzer
  clang libclang-rt-14-dev libfuzzer-14-dev
  # the HTML report and graph in a headless browser (tests/viz/browser_test.py; skipped loudly without it)
  chromium
  # the .deb: dpkg-shlibdeps computes its dependencies (tools/dev package, CPack)
  dpkg-dev
)

mode=install
case "${1:-}" in
  --check) mode=check ;;
  --list) printf '%s\n' "${packages[@]}"; exit 0 ;;
  "") ;;
  *) echo "usage: $0 [--check|--list]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)" != ii* ]]; then
    missing+=("$p")
  fi
done

if [[ $mode == check ]]; then
  if ((${#missing[@]})); then printf 'missing: %s\n' "${missing[*]}"; exit 1; fi
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then sudo=(sudo); else
    echo "install-deps: missing ${missing[*]}; run as root or install sudo" >&2
    exit 3
  fi
fi
export DEBIAN_FRONTEND=noninteractive

if [[ "${FC_APT_UPDATE:-}" == always ]]; then
  if ! "${sudo[@]}" apt-get update -q; then
    if ((${#missing[@]})); then echo "install-deps: apt-get update failed" >&2; exit 3; fi
    echo "install-deps: apt-get update failed; nothing is missing, continuing" >&2
  fi
elif ((${#missing[@]})); then
  "${sudo[@]}" apt-get update -q
fi

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} packages present"
fi
