//===- fft_semantics.h - What an fft node computes ------------------------===//
//
// The fft library node's attributes and its definition, shared by the interpreter (a direct
// DFT per line, the reference) and the host executor (an O(n log n) FFT per line), so both
// read the attributes one way. Three kinds, NumPy's transforms:
//   kind = "c2c" (the default): complex in, complex out of the same shape.
//   kind = "r2c" (forward only): float32|float64 in; the last transformed axis keeps its
//     n / 2 + 1 non-negative frequencies (numpy.fft.rfftn: a real transform of that axis,
//     then complex transforms of the others).
//   kind = "c2r" (inverse only): complex in, real out; the last transformed axis of the input
//     holds n / 2 + 1 frequencies and attribute `n` is its output length (numpy.fft.irfftn:
//     complex inverse transforms of the other axes, then a real inverse of the last, the
//     others implied by Hermitian symmetry and the imaginary parts of its zero and, for even
//     n, Nyquist frequencies ignored).
// `norm` scales as NumPy's does, by the product of the transformed lengths (the output's
// for c2r, the input's for r2c).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_FFT_SEMANTICS_H_
#define GPUC_IR_FFT_SEMANTICS_H_

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::ir {

enum class FftKind : uint8_t { kC2C, kR2C, kC2R };

struct FftAttributes {
  FftKind kind = FftKind::kC2C;
  std::vector<int64_t> axes;  // sorted, unique, in [0, rank)
  bool inverse = false;
  std::string norm = "backward";
  int64_t n = 0;  // c2r: the output length of axes.back()
};

/// The attributes of an fft node whose operand has rank `rank`; errors say what is wrong
/// without naming the op (the caller prefixes it).
absl::StatusOr<FftAttributes> ReadFftAttributes(const Attributes& attrs, int rank);

/// The result type of an fft over `operand` (complex for c2c and r2c, real for c2r), or why
/// the operand does not fit `attrs`.
absl::StatusOr<TensorType> FftResultType(const FftAttributes& attrs, const TensorType& operand);

/// The scale NumPy's `norm` applies to a transform over `lengths` elements in total.
double FftNormScale(const std::string& norm, bool inverse, double lengths);

/// Transforms one line in place, unnormalized: sign -1 forward, +1 inverse.
using FftLineTransform =
    absl::FunctionRef<void(std::vector<std::complex<double>>& line, bool inverse)>;

/// `node` (an fft node) applied to `input`, each line transformed by `transform` in
/// complex<double> and the result rounded once to the node's dtype.
absl::StatusOr<HostTensor> EvaluateFft(const Node& node, const HostTensor& input,
                                       FftLineTransform transform);

}  // namespace gpuc::ir

#endif  // GPUC_IR_FFT_SEMANTICS_H_
