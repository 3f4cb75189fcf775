//===- test_environment.cc - Settings every unit test runs under ----------===//
//
// Set before main (the host back end reads them once, when first used): kernel outputs start
// as a poison pattern so that an element no kernel writes shows up as a wrong value.
//
//===----------------------------------------------------------------------===//
#include <cstdlib>

namespace {

const bool kPoisonOutputs = [] { return setenv("GPUC_POISON", "1", /*overwrite=*/0) == 0; }();

}  // namespace
