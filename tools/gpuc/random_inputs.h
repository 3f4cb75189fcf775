//===- random_inputs.h - Seeded random arguments for a function -----------===//
//
// `gpuc --run --inputs=random` fills each parameter with values that exercise the op without
// being degenerate: floats uniform in [-2, 2) (never all zeros), integers in a small signed
// range (unsigned: [0, 20)), bools fair. The same seed gives the same values on every machine
// (std::mt19937_64 is specified exactly; the distributions are hand-written for that reason).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_TOOLS_GPUC_RANDOM_INPUTS_H_
#define GPUC_TOOLS_GPUC_RANDOM_INPUTS_H_

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace gpuc::tool {

ir::HostTensor RandomTensor(const ir::TensorType& type, uint64_t seed);
std::vector<ir::HostTensor> RandomArguments(const ir::Graph& graph, uint64_t seed);

}  // namespace gpuc::tool

#endif  // GPUC_TOOLS_GPUC_RANDOM_INPUTS_H_
