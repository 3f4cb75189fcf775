//===- json.h - The JSON form of a graph ----------------------------------===//
//
// The same content as the textual IR in a form other tools read without a parser:
//   {"name": "f", "params": [{"name": "x", "type": "f32[2,3]"}],
//    "nodes": [{"name": "y", "op": "exp", "operands": ["x"], "attrs": {...}, "type": "f32[2,3]"}],
//    "results": ["y"]}
// Attribute values are tagged with their kind ({"ints": [1]}, {"float": "nan"}) so that floats
// keep their exact bits and NaN/inf survive JSON.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_JSON_H_
#define GPUC_IR_JSON_H_

#include <nlohmann/json_fwd.hpp>

#include "absl/status/statusor.h"
#include "ir/graph.h"

namespace gpuc::ir {

nlohmann::json ToJson(const Graph& graph);
/// Reads ToJson's form; malformed input gives an error naming the offending field.
absl::StatusOr<Graph> FromJson(const nlohmann::json& json);

}  // namespace gpuc::ir

#endif  // GPUC_IR_JSON_H_
