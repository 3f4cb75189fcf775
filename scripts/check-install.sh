#!/usr/bin/env bash
# check-install.sh BUILD_DIR WORK_DIR — install gpuc from BUILD_DIR into WORK_DIR/prefix, then
# build and run a project outside the tree against it two ways: CMake's find_package(gpuc)
# and pkg-config; and make the .deb with CPack. ctest runs it (install.consumer).
set -euo pipefail
build=$(realpath "$1")
work=$2
source_dir=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
libdir=$(dirname "$(find "$work/prefix" -name libgpuc.so)")
test -L "$libdir/libgpuc.so"
readelf -d "$libdir/libgpuc.so.0" | grep -q 'SONAME.*libgpuc.so.0'
"$work/prefix/bin/gpuc" --version
# CMake.
cmake -S "$source_dir/test/install_consumer" -B "$work/cmake-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/consumer-configure.log"
cmake --build "$work/cmake-build" > "$work/consumer-build.log"
"$work/cmake-build/consumer"
# pkg-config.
c++ -std=c++20 "$source_dir/test/install_consumer/main.cc" -o "$work/consumer-pc" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs gpuc)
LD_LIBRARY_PATH="$libdir" "$work/consumer-pc"
# The Debian package.
(cd "$build" && cpack -G DEB -B "$work/deb" > "$work/cpack.log")
ls "$work"/deb/gpuc_*.deb
