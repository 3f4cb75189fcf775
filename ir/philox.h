//===- philox.h - The Philox4x32-10 counter-based generator ---------------===//
//
// Salmon et al., "Parallel random numbers: as easy as 1, 2, 3" (SC'11). A counter-based
// generator is a pure function of (counter, key), so random numbers are elementwise ops that
// fuse and give the same values on every backend and for every kernel split. This header is
// the definition the interpreter evaluates; the code generators emit the same rounds.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_PHILOX_H_
#define GPUC_IR_PHILOX_H_

#include <array>
#include <cstdint>

namespace gpuc::ir {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

/// The ten rounds of Philox4x32 with the published multipliers and Weyl key increments.
constexpr PhiloxCounter Philox4x32_10(PhiloxCounter ctr, PhiloxKey key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMul0} * ctr[0];
    const uint64_t p1 = uint64_t{kMul1} * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(p0)};
    key = {key[0] + kWeyl0, key[1] + kWeyl1};
  }
  return ctr;
}

/// SplitMix64's finalizer: turns seeds and step numbers into well-spread Philox keys, so that
/// 0, 1, 2 ... get unrelated streams (gpuc::random's seeds, a traced loop's steps).
constexpr uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The IR's `philox` op: 64 random bits for a 64-bit counter and key (words 0 and 1 of the
/// block for counter {lo, hi, 0, 0}).
constexpr uint64_t PhiloxBits(uint64_t counter, uint64_t key) {
  const PhiloxCounter out =
      Philox4x32_10({static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0u, 0u},
                    {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
  return (uint64_t{out[1]} << 32) | out[0];
}

}  // namespace gpuc::ir

#endif  // GPUC_IR_PHILOX_H_
