//===- tensor_summary.h - A short printable description of a tensor -------===//
//
// What `gpuc --run` prints per result: type, element statistics (min, max, mean, NaN and inf
// counts) and the first values, e.g.
//   %y: f32[8,16]  min=0.0012 max=0.4 mean=0.0625 nan=0 inf=0
//     [0.0312, 0.0405, ...]
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_TOOLS_GPUC_TENSOR_SUMMARY_H_
#define GPUC_TOOLS_GPUC_TENSOR_SUMMARY_H_

#include <string>

#include "ir/host_tensor.h"

namespace gpuc::tool {

std::string SummarizeTensor(const std::string& name, const ir::HostTensor& tensor, int show_values);

}  // namespace gpuc::tool

#endif  // GPUC_TOOLS_GPUC_TENSOR_SUMMARY_H_
