#!/usr/bin/env bash
# test-sanitizers.sh — the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer, and the
# .gir parser's libFuzzer target for a bounded time (docs/testing.md). Both must be clean.
#
#   scripts/test-sanitizers.sh [FUZZ_SECONDS]     (default 60)
#
# Run by scripts/test.sh after the regular suite. Builds into build-asan/ (g++, -O1) and
# build-fuzz/ (clang: libFuzzer is clang's).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds=${1:-60}
./scripts/install-deps.sh
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUC_BUILD_BENCH=OFF \
  "-DCMAKE_CXX_FLAGS=-O1 -g $sanitize" "-DCMAKE_EXE_LINKER_FLAGS=$sanitize" \
  "-DCMAKE_SHARED_LINKER_FLAGS=$sanitize" >/dev/null
cmake --build build-asan -j "$(nproc)" --target gpuc_unit_tests
# allocator_may_return_null: the exhaustion tests ask for 2^45 doubles and expect an error,
# which ASan would otherwise turn into an abort.
# test/sanitizers/lsan.supp: leaks inside NVIDIA's closed libraries, not gpuc's.
ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS="suppressions=$PWD/test/sanitizers/lsan.supp" \
  GPUC_POISON=1 GPUC_CACHE_DIR="$PWD/build-asan/test-kernel-cache" \
  build-asan/test/unit/gpuc_unit_tests --gtest_brief=1
echo "sanitizers: every unit test passed under ASan + UBSan"

# The fuzzer links only ir/ (the parser, printer and verifier) and Abseil.
mkdir -p build-fuzz/corpus
fuzzer=build-fuzz/gir_parser_fuzzer
if [ ! -x "$fuzzer" ] || [ -n "$(find ir test/fuzz -newer "$fuzzer" -name '*.cc' -o -newer "$fuzzer" -name '*.h' | head -1)" ]; then
  # shellcheck disable=SC2046
  clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. -Iinclude ir/*.cc \
    test/fuzz/gir_parse_one.cc test/fuzz/gir_parser_fuzzer.cc -o "$fuzzer" \
    $(pkg-config --libs absl_status absl_statusor absl_strings absl_str_format \
      absl_flat_hash_map absl_hash)
fi
# Seeds: every .gir of the tree, named by its path (several share a file name).
while IFS= read -r seed; do cp "$seed" "build-fuzz/corpus/${seed//\//_}"; done \
  < <(find examples test/lit -name '*.gir')
if ! "$fuzzer" -max_total_time="$fuzz_seconds" -max_len=4096 -timeout=10 build-fuzz/corpus \
  >build-fuzz/fuzz.log 2>&1; then
  tail -40 build-fuzz/fuzz.log
  echo "fuzzing: the .gir parser failed (input saved by libFuzzer as crash-*/timeout-* here)"
  exit 1
fi
tail -1 build-fuzz/fuzz.log
echo "fuzzing: the .gir parser ran ${fuzz_seconds} s without a failure"
