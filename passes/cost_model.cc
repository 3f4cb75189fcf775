//===- cost_model.cc - What fusion weighs: flops, bytes moved, launches ---===//
#include "passes/cost_model.h"

#include "absl/strings/str_format.h"

namespace gpuc::passes {

double FlopsPerElement(const ir::Node& node) {
  switch (node.info().cost) {
    case ir::CostClass::kFree:
    case ir::CostClass::kLibraryCall:
      return 0;
    case ir::CostClass::kCheap:
      return 1;
    case ir::CostClass::kModerate:
      return 4;
    case ir::CostClass::kExpensive:
      return 40;
  }
  return 1;
}

std::string RecomputeCost::ToString() const {
  return absl::StrFormat("%.2g flops to recompute against %.2g to write it out and read it back",
                         recompute, materialize);
}

RecomputeCost CompareRecompute(const ir::Node& node, double copies, const CostModel& model) {
  const double elements = static_cast<double>(node.shape().num_elements());
  const double bytes = static_cast<double>(ir::DTypeSize(node.dtype()));
  RecomputeCost cost;
  cost.recompute = elements * (copies - 1) * FlopsPerElement(node);
  cost.materialize = elements * bytes * (1 + copies) * model.flops_per_byte + model.launch_flops;
  return cost;
}

}  // namespace gpuc::passes
