//===- printer.h - The textual IR (.gir) writer ---------------------------===//
//
// Print() writes the canonical text of a graph; ir/parser.h reads it back to an equal graph, and
// printing that graph gives the same text again (docs/ir.md has the grammar).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_PRINTER_H_
#define GPUC_IR_PRINTER_H_

#include <string>

#include "ir/attributes.h"
#include "ir/graph.h"
#include "ir/value_names.h"

namespace gpuc::ir {

std::string Print(const Graph& graph);

/// One attribute value in .gir syntax ("[1, 2]", "true", "2.5", "(1.0, -1.0)", "f32").
/// One body line without indentation or newline: "%y = add %a, %b : f32[4]".
std::string PrintNode(const Node& node, const ValueNames& names);

std::string PrintAttrValue(const AttrValue& value);

/// A double in the shortest form that reads back to the same bits, always with a '.' or an
/// exponent so that it reads back as a float ("2.0", "1e-07", "nan", "-inf", "-0.0").
std::string PrintDouble(double value);

}  // namespace gpuc::ir

#endif  // GPUC_IR_PRINTER_H_
