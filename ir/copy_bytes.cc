//===- copy_bytes.cc - Large host copies at memory speed ------------------===//
#include "ir/copy_bytes.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpuc::ir {

void CopyBytes(void* dst, const void* src, size_t bytes) {
  constexpr size_t kLarge = 4096;  // below this, memcpy's small-copy paths are fine
  const uintptr_t apart = reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src);
#if defined(__SSE2__)
  const auto* d0 = static_cast<const char*>(dst);
  const auto* s0 = static_cast<const char*>(src);
  const bool overlap = d0 < s0 + bytes && s0 < d0 + bytes;
  if (bytes >= kLarge && (apart & 63) != 0 && !overlap) {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    size_t i = 0;
    for (; i + 64 <= bytes; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), a);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
    }
    std::memcpy(d + i, s + i, bytes - i);
    return;
  }
#endif
  (void)apart;
  std::memmove(dst, src, bytes);
}

}  // namespace gpuc::ir
