//===- interpreter_library.cc - Library nodes: matmul, fft, spmv ----------===//
//
// Straightforward definitions (a triple loop, a direct DFT, a CSR row loop) that the vendor and
// CPU libraries are checked against. The DFT is O(n^2) per line, fine for test sizes.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <numbers>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/elementwise_semantics.h"
#include "ir/fft_semantics.h"
#include "ir/interpreter_kernels.h"
#include "ir/linalg_semantics.h"
#include "ir/matmul_semantics.h"
#include "ir/type_inference.h"
#include "ir/wide_value.h"

namespace gpuc::ir::interp {
namespace {

using Complex = std::complex<double>;

HostTensor Matmul(const Node& node, const HostTensor& a, const HostTensor& b) {
  HostTensor out(node.type());
  const DType loop = node.dtype();
  // NumPy multiplies and sums float16 (and gpuc bfloat16) products in float32 and rounds
  // once at the end; every other dtype computes in its own.
  const DType acc_type =
      loop == DType::kFloat16 || loop == DType::kBFloat16 ? DType::kFloat32 : loop;
  const MatmulTransposes transposes = TransposesOf(node);
  // Promote 1-D operands to matrices (NumPy), then index batch axes with broadcasting. A
  // transposed operand stores its matrix as [.., k, m] (a) or [.., n, k] (b).
  std::vector<int64_t> ad = a.shape().ToVector(), bd = b.shape().ToVector();
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  if (transposes.a) std::swap(ad[ad.size() - 2], ad.back());
  if (transposes.b) std::swap(bd[bd.size() - 2], bd.back());
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  // Element strides of op(a)'s rows and columns and op(b)'s.
  const int64_t a_row = transposes.a ? 1 : k, a_col = transposes.a ? m : 1;
  const int64_t b_row = transposes.b ? 1 : n, b_col = transposes.b ? k : 1;
  Shape a_batch(std::vector<int64_t>(ad.begin(), ad.end() - 2));
  Shape b_batch(std::vector<int64_t>(bd.begin(), bd.end() - 2));
  Shape batch = *BroadcastShapes(a_batch, b_batch);
  std::vector<int64_t> batch_index(batch.rank());
  int64_t out_pos = 0;
  for (int64_t bi = 0; bi < batch.num_elements(); ++bi) {
    UnflattenIndex(bi, batch, absl::MakeSpan(batch_index));
    int64_t a_base = BroadcastOffset(batch_index, a_batch) * m * k;
    int64_t b_base = BroadcastOffset(batch_index, b_batch) * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        WideValue acc = ConvertTo(acc_type, WideValue::Signed(0));
        for (int64_t p = 0; p < k; ++p) {
          WideValue x = ConvertTo(
              acc_type,
              ConvertTo(loop, LoadElement(a.dtype(), a.element(a_base + i * a_row + p * a_col))));
          WideValue y = ConvertTo(
              acc_type,
              ConvertTo(loop, LoadElement(b.dtype(), b.element(b_base + p * b_row + j * b_col))));
          acc = EvalElementwise(OpCode::kAdd, acc_type,
                                {acc, EvalElementwise(OpCode::kMul, acc_type, {x, y})});
        }
        StoreElement(node.dtype(), out.element(out_pos++), ConvertTo(loop, acc));
      }
    }
  }
  return out;
}

/// The direct O(n^2) DFT of one line, unnormalized.
void DirectDft(std::vector<Complex>& line, bool inverse) {
  const int64_t n = static_cast<int64_t>(line.size());
  const double sign = inverse ? 1.0 : -1.0;
  std::vector<Complex> result(line.size());
  for (int64_t f = 0; f < n; ++f) {
    Complex sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      // Reducing j*f modulo n keeps the angle small and the twiddle accurate.
      double angle = sign * 2.0 * std::numbers::pi * static_cast<double>((j * f) % n) / n;
      sum += line[j] * Complex(std::cos(angle), std::sin(angle));
    }
    result[f] = sum;
  }
  line = std::move(result);
}

/// matmul(a, b) + bias, then maximum(·, 0) for relu: the unfused ops' definitions.
HostTensor MatmulBias(const Node& node, const HostTensor& a, const HostTensor& b,
                      const HostTensor& bias) {
  HostTensor out = Matmul(node, a, b);
  const DType dtype = node.dtype();
  const bool relu = AppliesRelu(node);
  const WideValue zero = ConvertTo(dtype, WideValue::Signed(0));
  const int64_t n = node.shape()[node.shape().rank() - 1];
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    WideValue v = EvalElementwise(
        OpCode::kAdd, dtype,
        {LoadElement(dtype, out.element(i)), LoadElement(dtype, bias.element(i % n))});
    if (relu) v = EvalElementwise(OpCode::kMaximum, dtype, {v, zero});
    StoreElement(dtype, out.element(i), v);
  }
  return out;
}

absl::StatusOr<HostTensor> Spmv(const Node& node, const Operands& operands) {
  const HostTensor& values = *operands[0];
  const HostTensor& columns = *operands[1];
  const HostTensor& offsets = *operands[2];
  const HostTensor& x = *operands[3];
  const DType loop = node.dtype();
  // x is [cols] or [cols, k]: k right-hand sides, row-major.
  const int64_t rows = node.shape()[0], nnz = values.num_elements(), cols = x.shape()[0];
  const int64_t k = x.shape().rank() == 2 ? x.shape()[1] : 1;
  auto index_at = [](const HostTensor& t, int64_t i) {
    return LoadElement(t.dtype(), t.element(i)).i;
  };
  HostTensor out(node.type());
  int64_t previous = 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t begin = index_at(offsets, r), end = index_at(offsets, r + 1);
    if (begin != previous || end < begin || end > nnz) {
      return absl::InvalidArgumentError(
          absl::StrCat("spmv: row_offsets must start at 0 and rise to nnz = ", nnz, "; row ", r,
                       " spans [", begin, ", ", end, ")"));
    }
    previous = end;
    for (int64_t j = 0; j < k; ++j) {
      WideValue acc = ConvertTo(loop, WideValue::Signed(0));
      for (int64_t p = begin; p < end; ++p) {
        int64_t c = index_at(columns, p);
        if (c < 0 || c >= cols) {
          return absl::InvalidArgumentError(absl::StrCat("spmv: column index ", c, " at position ",
                                                         p, " is outside [0, ", cols, ")"));
        }
        WideValue v = ConvertTo(loop, LoadElement(values.dtype(), values.element(p)));
        WideValue xv = ConvertTo(loop, LoadElement(x.dtype(), x.element(c * k + j)));
        acc = EvalElementwise(OpCode::kAdd, loop,
                              {acc, EvalElementwise(OpCode::kMul, loop, {v, xv})});
      }
      StoreElement(node.dtype(), out.element(r * k + j), acc);
    }
  }
  if (previous != nnz && rows >= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("spmv: row_offsets end at ", previous, " but nnz is ", nnz));
  }
  return out;
}

}  // namespace

absl::StatusOr<HostTensor> EvalLibraryNode(const Node& node, const Operands& operands) {
  switch (node.op()) {
    case OpCode::kMatmul:
      return Matmul(node, *operands[0], *operands[1]);
    case OpCode::kFft:
      return EvaluateFft(node, *operands[0], DirectDft);
    case OpCode::kSpmv:
      return Spmv(node, operands);
    case OpCode::kMatmulBias:
      return MatmulBias(node, *operands[0], *operands[1], *operands[2]);
    case OpCode::kScatter:
      return EvalScatterNode(node, *operands[0], *operands[1], *operands[2]);
    case OpCode::kLinalg:
      return EvalLinalgNode(node, *operands[0], operands.size() > 1 ? operands[1] : nullptr);
    case OpCode::kSpsolve:
      return EvalSpsolveNode(node, *operands[0], *operands[1], *operands[2], *operands[3]);
    case OpCode::kSort:
    case OpCode::kArgSort:
      return EvalSortNode(node, *operands[0]);
    default:
      return absl::InvalidArgumentError(absl::StrCat("not a library op: ", OpName(node.op())));
  }
}

}  // namespace gpuc::ir::interp
