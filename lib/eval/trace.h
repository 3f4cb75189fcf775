//===- trace.h - Recording a C++ function of arrays once, over placeholders ===//
//
// gpuc::compile and the loops (gpuc/loops.h) run the user's function once on placeholder
// arrays (parameters with no value) and keep the graph it records. Evaluated arrays the
// function reads are captured: they become further parameters, bound to their buffers.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EVAL_TRACE_H_
#define GPUC_LIB_EVAL_TRACE_H_

#include <functional>
#include <string>
#include <vector>

#include "gpuc/array.h"
#include "ir/graph.h"
#include "lib/eval/evaluator.h"

namespace gpuc::detail {

struct TracedGraph {
  ir::Graph graph;                  // params: one per placeholder, then the captured arrays
  std::vector<BufferRef> captured;  // the captured arrays' buffers, in parameter order
};

/// Runs `fn` on placeholders of `types` (named `names`) and returns what it recorded; `what`
/// ("compile", "fori_loop body") names the function in errors, among them the error of an
/// evaluation of a placeholder while tracing. Throws gpuc::Error when fn returns no array.
TracedGraph TraceGraph(const std::string& what, const std::vector<ir::TensorType>& types,
                       const std::vector<std::string>& names,
                       const std::function<std::vector<Array>(const std::vector<Array>&)>& fn);

/// What is being traced on this thread ("" when nothing is).
const std::string& CurrentTrace();

/// While a loop body is traced: the placeholder of the step's random key (uint64, 0-d), which
/// the loop passes a new value every step; random draws mix it into their key, so a draw
/// inside a body gives new numbers every step (gpuc/random.h). Null otherwise.
const Array* CurrentStepKey();

/// Makes the last of the placeholders TraceGraph creates the step key while `fn` runs.
struct WithStepKey {};

/// TraceGraph with the last placeholder (of type uint64[], which `types` must end with) as
/// the step key.
TracedGraph TraceGraph(const std::string& what, const std::vector<ir::TensorType>& types,
                       const std::vector<std::string>& names,
                       const std::function<std::vector<Array>(const std::vector<Array>&)>& fn,
                       WithStepKey);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_EVAL_TRACE_H_
