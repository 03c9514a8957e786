# shellcheck shell=bash
# Install what utim needs to build, test and benchmark, on Debian.
#
# Sourced by tools/test.sh and tools/bench.sh (the one place this logic
# lives); not meant to be run on its own. Call utim_install_deps.
#
# A package is only installed when it is missing: each one is checked first
# by a command it provides (command -v) and, for packages without a command
# of their own, by dpkg -s. `apt-get update` runs at most once, and only when
# something is missing. As root it installs directly; as another user it uses
# `sudo -n` when that works without a password, and otherwise stops with the
# list of what to install.

# Package name and the command that proves it is installed ("-": none, ask dpkg).
UTIM_DEPS=(
  "cmake:cmake"
  "ninja-build:ninja"
  "gcc:gcc"
  "gcc-arm-none-eabi:arm-none-eabi-gcc"
  "libnewlib-arm-none-eabi:-"
  "qemu-system-arm:qemu-system-arm"
  "valgrind:valgrind"
  "clang-tidy:clang-tidy"
  "cppcheck:cppcheck"
  "clang-format:clang-format"
  "python3:python3"
  "rt-tests:cyclictest"
  "clang:clang"
  "libclang-rt-14-dev:-"
  "pkg-config:pkg-config"
  "libuv1-dev:-"
  "g++:g++"
  "verilator:verilator"
  "yosys:yosys"
  "python3-matplotlib:-"
  "doxygen:doxygen"
  "gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc"
  "g++-aarch64-linux-gnu:aarch64-linux-gnu-g++"
  "libc6-dev-arm64-cross:-"
  "qemu-user:qemu-aarch64"
  "gcc-riscv64-unknown-elf:riscv64-unknown-elf-gcc"
  "picolibc-riscv64-unknown-elf:-"
  "qemu-system-misc:qemu-system-riscv32"
)

# Print the packages of UTIM_DEPS that are not installed, one a line.
utim_missing_deps() {
  local entry pkg cmd
  for entry in "${UTIM_DEPS[@]}"; do
    pkg=${entry%%:*}
    cmd=${entry#*:}
    if [[ $cmd != - ]] && command -v "$cmd" >/dev/null 2>&1; then
      continue
    fi
    if dpkg -s "$pkg" >/dev/null 2>&1; then
      # Installed, but its command may be versioned only (no alternatives yet).
      if [[ $cmd == - ]] || command -v "$cmd" >/dev/null 2>&1; then
        continue
      fi
    fi
    printf '%s\n' "$pkg"
  done
}

# Install every missing package; returns non-zero when that is impossible.
utim_install_deps() {
  local missing=() sudo=()
  mapfile -t missing < <(utim_missing_deps)
  if ((${#missing[@]} == 0)); then
    echo "deps: all present"
    return 0
  fi
  if ((EUID != 0)); then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      echo "deps: missing packages: ${missing[*]}" >&2
      echo "deps: run as root, or: apt-get install ${missing[*]}" >&2
      return 1
    fi
  fi
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null || return 1
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" </dev/null >/dev/null || return 1
  mapfile -t missing < <(utim_missing_deps)
  if ((${#missing[@]} != 0)); then
    echo "deps: still missing after install: ${missing[*]}" >&2
    return 1
  fi
  echo "deps: installed"
}
