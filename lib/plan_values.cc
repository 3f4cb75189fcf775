//===- plan_values.cc - What both executors do with a plan's values -------===//
#include "lib/plan_values.h"

#include "ir/interpreter.h"

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
    absl::StatusOr<ir::HostTensor> value = ir::InterpretNode(*m, operands);
    if (!value.ok()) return value.status();
    local[m.get()] = *std::move(value);
  }
  for (const ir::NodeRef& out : kernel.outputs) values[out.get()] = local.at(out.get());
  return absl::OkStatus();
}

}  // namespace gpuc::detail
