//===- random_inputs.cc - Seeded random arguments for a function ----------===//
#include "tools/gpuc/random_inputs.h"

#include <random>

#include "ir/wide_value.h"

namespace gpuc::tool {

ir::HostTensor RandomTensor(const ir::TensorType& type, uint64_t seed) {
  ir::HostTensor tensor(type);
  std::mt19937_64 engine(seed);
  // 53 random bits -> [0, 1): exact and identical everywhere, unlike uniform_real_distribution.
  auto unit = [&] { return static_cast<double>(engine() >> 11) * 0x1.0p-53; };
  for (int64_t i = 0; i < tensor.num_elements(); ++i) {
    ir::WideValue v;
    switch (ir::KindOf(type.dtype)) {
      case ir::DTypeKind::kBool:
        v = ir::WideValue::Bool(engine() & 1);
        break;
      case ir::DTypeKind::kSigned:
        v = ir::WideValue::Signed(static_cast<int64_t>(engine() % 21) - 10);
        break;
      case ir::DTypeKind::kUnsigned:
        v = ir::WideValue::Unsigned(engine() % 20);
        break;
      case ir::DTypeKind::kFloat:
        v = ir::WideValue::Float(unit() * 4 - 2);
        break;
      case ir::DTypeKind::kComplex: {
        double re = unit() * 4 - 2;
        v = ir::WideValue::Complex({re, unit() * 4 - 2});
        break;
      }
    }
    ir::StoreElement(type.dtype, tensor.element(i), v);
  }
  return tensor;
}

std::vector<ir::HostTensor> RandomArguments(const ir::Graph& graph, uint64_t seed) {
  std::vector<ir::HostTensor> args;
  for (size_t i = 0; i < graph.params.size(); ++i) {
    // A distinct stream per parameter, so adding a parameter does not change the others.
    args.push_back(RandomTensor(graph.params[i]->type(), seed * 1000003 + i));
  }
  return args;
}

}  // namespace gpuc::tool
