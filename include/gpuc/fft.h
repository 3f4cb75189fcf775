//===- gpuc/fft.h - Discrete Fourier transforms ---------------------------===//
//
// numpy.fft's transforms with NumPy 2's result types: float32, float16 and complex64 inputs
// give complex64, everything else complex128. `n` / `s` crop or zero-pad each transformed
// axis first; `norm` is "backward" (the default: 1/n on the inverse), "ortho" (1/sqrt(n) both
// ways) or "forward" (1/n on the forward transform). Each transform records one fft library
// node over all its axes; crops, pads and the real-to-complex conversion are views and
// elementwise nodes that fuse into the code around it. On the host the node runs an
// O(n log n) FFT in double precision (lib/backend/host/host_fft.h); on a GPU, cached cuFFT plans
// (lib/backend/cuda/gpu_fft.h). The real transforms are real-to-complex and complex-to-real nodes
// (cuFFT's R2C and C2R on a GPU: half the work of a complex transform, no full spectrum stored).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_FFT_H_
#define GPUC_FFT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuc/array.h"

namespace gpuc::fft {

Array fft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
          const std::string& norm = "backward");
Array ifft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           const std::string& norm = "backward");
/// Over `axes` (every axis when empty, or the last s.size() when only `s` is given), each
/// cropped or padded to `s` when given.
Array fftn(const Array& a, const std::vector<int64_t>& s = {},
           const std::vector<int64_t>& axes = {}, const std::string& norm = "backward");
Array ifftn(const Array& a, const std::vector<int64_t>& s = {},
            const std::vector<int64_t>& axes = {}, const std::string& norm = "backward");
Array fft2(const Array& a, const std::vector<int64_t>& s = {},
           const std::vector<int64_t>& axes = {-2, -1}, const std::string& norm = "backward");
Array ifft2(const Array& a, const std::vector<int64_t>& s = {},
            const std::vector<int64_t>& axes = {-2, -1}, const std::string& norm = "backward");
/// The transform of a real array, keeping the n / 2 + 1 non-negative frequencies of `axis`.
Array rfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           const std::string& norm = "backward");
/// fftn of a real array, the last transformed axis halved as rfft does.
Array rfftn(const Array& a, const std::vector<int64_t>& s = {},
            const std::vector<int64_t>& axes = {}, const std::string& norm = "backward");
/// The inverse of rfft: n real outputs (default 2 * (m - 1) for m input frequencies) from the
/// n / 2 + 1 non-negative frequencies of `axis`, the others implied by Hermitian symmetry
/// (the imaginary parts of the zero and, for even n, the Nyquist frequency are ignored).
Array irfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            const std::string& norm = "backward");
/// ifftn over all but the last of `axes`, then irfft over the last.
Array irfftn(const Array& a, const std::vector<int64_t>& s = {},
             const std::vector<int64_t>& axes = {}, const std::string& norm = "backward");

/// The sample frequencies of an n-point transform with sample spacing d (float64).
Array fftfreq(int64_t n, double d = 1.0);
/// Those of rfft: 0 .. n / 2.
Array rfftfreq(int64_t n, double d = 1.0);
/// Moves the zero frequency to the middle of `axes` (every axis when empty).
Array fftshift(const Array& x, const std::vector<int64_t>& axes = {});
/// The inverse of fftshift.
Array ifftshift(const Array& x, const std::vector<int64_t>& axes = {});

/// How many cuFFT plans each GPU keeps (16 by default; at least 1). A plan costs its setup
/// time (tens of microseconds to milliseconds) on a miss; the least recently used plan goes
/// when the cache is full. Plans hold no work area: that comes from gpuc's pool per call.
void set_plan_cache_size(size_t plans);
size_t plan_cache_size();

}  // namespace gpuc::fft

#endif  // GPUC_FFT_H_
