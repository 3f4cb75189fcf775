#!/usr/bin/env bash
# install-deps.sh — install the Debian packages gpuc needs to build and test.
#
# Idempotent: packages already present are skipped, and nothing is printed beyond one line when
# everything is there. Runs as root or through sudo. The CUDA toolkit is not installed here: gpuc
# builds against its headers at /usr/local/cuda when they exist and never needs a GPU or libcuda.
set -euo pipefail

packages=(
  cmake ninja-build g++ python3
  llvm-19-dev llvm-19-tools libpolly-19-dev   # LLVM 19 (FileCheck, lit and the CMake package config)
  zlib1g-dev libzstd-dev libxml2-dev libedit-dev libffi-dev libcurl4-openssl-dev  # LLVMExports link needs
  libabsl-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libdlpack-dev                               # DLPack import and export (header only)
  libopenblas-dev                             # CBLAS GEMMs for matmul on the host
  libsuperlu-dev                              # SuperLU for spsolve (headers; opened at run time)
  python3-numpy python3-scipy                 # the NumPy reference for fixtures and checks
  clang-format
  pkg-config                                  # the installed package's consumer test
  clang libclang-rt-dev                       # the .gir parser's libFuzzer target (clang only)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
