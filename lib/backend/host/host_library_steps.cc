//===- host_library_steps.cc - Plan steps without a compiled kernel -------===//
#include "lib/backend/host/host_library_steps.h"

#include "ir/interpreter.h"
#include "lib/backend/host/host_blas.h"
#include "lib/backend/host/host_fft.h"
#include "lib/backend/host/host_sparse.h"

namespace gpuc::detail {

absl::Status InterpretFusedKernel(const passes::FusedKernel& kernel,
                                  PlanValues<ir::HostTensor>& values) {
  PlanValues<ir::HostTensor> local;
  for (const ir::NodeRef& m : kernel.nodes) {
    std::vector<const ir::HostTensor*> operands;
    for (const ir::NodeRef& op : m->operands()) {
      auto it = local.find(op.get());
      operands.push_back(it != local.end() ? &it->second : &values.at(op.get()));
    }
    // GEMMs through the CPU BLAS, FFTs in O(n log n), CSR products as a typed loop; everything
    // else (and matmuls and products of other dtypes) through the interpreter's definitions.
    absl::StatusOr<ir::HostTensor> value =
        HostBlasHandles(*m)           ? HostMatmul(*m, *operands[0], *operands[1])
        : m->op() == ir::OpCode::kFft ? HostFft(*m, *operands[0])
        : m->op() == ir::OpCode::kMatmulBias
            ? HostMatmulBias(*m, *operands[0], *operands[1], *operands[2])
        : HostSparseHandles(*m) ? HostSpmv(*m, operands)
                                : ir::InterpretNode(*m, operands);
    if (!value.ok()) return value.status();
    local[m.get()] = *std::move(value);
  }
  for (const ir::NodeRef& out : kernel.outputs) values[out.get()] = local.at(out.get());
  return absl::OkStatus();
}

}  // namespace gpuc::detail
