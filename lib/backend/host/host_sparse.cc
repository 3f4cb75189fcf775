//===- host_sparse.cc - spmv nodes on the host as a typed CSR loop --------===//
#include "lib/backend/host/host_sparse.h"

#include <algorithm>
#include <complex>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "lib/exec/options.h"
#include "runtime/thread_pool.h"

namespace gpuc::detail {
namespace {

using ir::DType;
using ir::HostTensor;

// The structure's checks: row offsets from 0 rising to nnz, columns in [0, cols).
template <typename Index>
absl::Status CheckStructure(const Index* row, const Index* col, int64_t rows, int64_t nnz,
                            int64_t cols) {
  int64_t previous = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t begin = row[r], end = row[r + 1];
    if (begin != previous || end < begin || end > nnz) {
      return absl::InvalidArgumentError(
          absl::StrCat("spmv: row_offsets must start at 0 and rise to nnz = ", nnz, "; row ", r,
                       " spans [", begin, ", ", end, ")"));
    }
    previous = end;
    for (int64_t p = begin; p < end; ++p) {
      if (col[p] < 0 || col[p] >= cols) {
        return absl::InvalidArgumentError(absl::StrCat(
            "spmv: column index ", col[p], " at position ", p, " is outside [0, ", cols, ")"));
      }
    }
  }
  if (previous != nnz) {
    return absl::InvalidArgumentError(
        absl::StrCat("spmv: row_offsets end at ", previous, " but nnz is ", nnz));
  }
  return absl::OkStatus();
}

template <typename T, typename Index>
absl::StatusOr<HostTensor> Csr(const ir::Node& node, const HostTensor& values,
                               const HostTensor& columns, const HostTensor& offsets,
                               const HostTensor& x) {
  const T* v = reinterpret_cast<const T*>(values.data());
  const Index* col = reinterpret_cast<const Index*>(columns.data());
  const Index* row = reinterpret_cast<const Index*>(offsets.data());
  const T* xs = reinterpret_cast<const T*>(x.data());
  const int64_t rows = node.shape()[0], nnz = values.num_elements(), cols = x.shape()[0];
  const int64_t k = x.shape().rank() == 2 ? x.shape()[1] : 1;
  // gpuc::sparse checked the structure when the matrix was built (attribute validated); a
  // product from a .gir file or an unchecked source is checked here, before any row runs.
  if (!node.attrs().GetBool("validated", false).value_or(false)) {
    if (absl::Status s = CheckStructure(row, col, rows, nnz, cols); !s.ok()) return s;
  }
  HostTensor out = HostTensor::Uninitialized(node.type());
  T* y = reinterpret_cast<T*>(out.data());
  // Rows split over the pool, about 64K products a chunk (as the compiled kernels split).
  const int64_t per_row = std::max<int64_t>(1, rows == 0 ? 1 : nnz * k / rows);
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / per_row);
  runtime::ThreadPool::Shared(exec::CurrentOptions().threads)
      .ParallelFor(rows, grain, [&](int64_t first, int64_t last, int64_t) {
        for (int64_t r = first; r < last; ++r) {
          const int64_t begin = row[r], end = row[r + 1];
          // Each output sums its row's products in order, as the interpreter does.
          for (int64_t j = 0; j < k; ++j) {
            T acc = T(0);
            for (int64_t p = begin; p < end; ++p) acc += v[p] * xs[col[p] * k + j];
            y[r * k + j] = acc;
          }
        }
      });
  return out;
}

template <typename T>
absl::StatusOr<HostTensor> WithIndex(const ir::Node& node,
                                     absl::Span<const HostTensor* const> operands) {
  if (operands[1]->dtype() == DType::kInt32) {
    return Csr<T, int32_t>(node, *operands[0], *operands[1], *operands[2], *operands[3]);
  }
  return Csr<T, int64_t>(node, *operands[0], *operands[1], *operands[2], *operands[3]);
}

}  // namespace

bool HostSparseHandles(const ir::Node& node) {
  if (node.op() != ir::OpCode::kSpmv) return false;
  const DType d = node.dtype();
  if (d != DType::kFloat32 && d != DType::kFloat64 && d != DType::kComplex64 &&
      d != DType::kComplex128) {
    return false;
  }
  return node.operand(0).dtype() == d && node.operand(3).dtype() == d;
}

absl::StatusOr<HostTensor> HostSpmv(const ir::Node& node,
                                    absl::Span<const HostTensor* const> operands) {
  switch (node.dtype()) {
    case DType::kFloat32:
      return WithIndex<float>(node, operands);
    case DType::kFloat64:
      return WithIndex<double>(node, operands);
    case DType::kComplex64:
      return WithIndex<std::complex<float>>(node, operands);
    case DType::kComplex128:
      return WithIndex<std::complex<double>>(node, operands);
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("spmv: no typed host loop for ", ir::DTypeName(node.dtype())));
  }
}

}  // namespace gpuc::detail
