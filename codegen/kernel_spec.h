//===- kernel_spec.h - What one fused kernel computes, for code generation ===//
//
// A KernelSpec turns a ir::FusedKernel into the structure code generation follows:
//  - buffers: the kernel's inputs, outputs and scratch (per-row values of reductions that no
//    other kernel reads), in the order the generated functions receive them;
//  - phases: the loops the kernel runs, each a generated function over a range of rows
//    (reductions over the kept index space, then stores of the outputs by shape);
//  - extents: every extent other than 1 becomes a symbol whose value is a kernel argument, so
//    one compiled kernel serves every size of the same structure (extents of 1 stay literal:
//    they decide broadcasting);
//  - offsets: slice and update_slice starts and pad lows are symbols too, one per member
//    and axis (zero stays literal), so a loop over a moving window compiles once;
//  - key: the canonical text of the kernel with symbols for extents and offsets, the cache
//    key's input.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_KERNEL_SPEC_H_
#define GPUC_CODEGEN_KERNEL_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/fused_kernel.h"
#include "ir/node.h"

namespace gpuc::codegen {

/// One loop of a kernel, emitted as one function
///   void name(char* const* buffers, const int64_t* extents, int64_t begin, int64_t end,
///             int64_t* error)
/// that does the work of rows [begin, end). Rows of a reduce phase are the elements of the
/// kept (not reduced) index space; rows of a store phase are elements of its shape.
struct Phase {
  enum class Kind : uint8_t { kReduce, kStore };
  Kind kind = Kind::kStore;
  /// kReduce: the reductions accumulated together (they all read spec.reduced_shape).
  std::vector<const ir::Node*> reductions;
  /// kStore: members written, all of shape `shape`.
  std::vector<const ir::Node*> stores;
  ir::Shape shape;
  std::string function_name;
};

/// Where a take member found an index out of bounds: error[0] = 1 + the member's number in
/// KernelSpec::members, error[1] = the index.
inline constexpr int kErrorSlots = 2;

struct KernelSpec;
/// Ok when error[0] is 0; otherwise the interpreter's error for the same mistake (a take
/// index out of bounds, naming the index, the axis, the operand and where it was recorded).
absl::Status KernelErrorStatus(const KernelSpec& spec, const int64_t* error);

struct KernelSpec {
  ir::KernelKind kind = ir::KernelKind::kLoop;
  std::vector<const ir::Node*> members;  // graph order
  absl::flat_hash_set<const ir::Node*> member_set;
  std::vector<const ir::Node*> inputs;   // read from other kernels or parameters
  std::vector<const ir::Node*> outputs;  // written for other kernels or results
  std::vector<const ir::Node*> scratch;  // per-row reduction values kept only inside
  ir::Shape reduced_shape;               // reduction kernels: the shape reduced
  std::vector<int64_t> reduced_axes;     // sorted
  std::vector<Phase> phases;
  /// Every phase works row by row on the same rows (a row reduction whose later phases read
  /// only their own row's reductions): a thread may run all phases for its rows back to back,
  /// while the row is still in cache. Otherwise each phase finishes before the next starts.
  bool row_local = false;
  /// Row-local kernels: an expensive value of the reduced shape that a reduce phase computes
  /// and the last store phase needs again (softmax's exp(x - max)). The reduce phase stores
  /// it into the storage of an output of its dtype, written by that store phase, which reads
  /// it back instead of computing it twice (the host's kernels; a GPU row kernel keeps its
  /// row in registers).
  struct Carried {
    const ir::Node* value;
    const ir::Node* output;
    int phase;  // the reduce phase that stores it
  };
  std::vector<Carried> carried;
  /// Width of index arithmetic: 32 when every array of the kernel has fewer than 2^31
  /// elements (cheaper multiplies and divisions, and on GPUs half the registers), else 64.
  int index_bits = 64;
  /// The value of each symbol, in argument order: the extents, then the offsets.
  std::vector<int64_t> extents;
  absl::flat_hash_map<int64_t, int> symbol_of;  // extent value -> symbol
  /// Offsets are arguments too (decision 11): each nonzero slice or update_slice start and
  /// pad low of a member, per axis, has a symbol of its own, so `a[i:]` in a loop over i
  /// reuses one kernel. A zero offset stays literal; the key records which are zero.
  absl::flat_hash_map<std::pair<const ir::Node*, int>, int> offset_symbol;  // (node, axis)
  /// Per offset symbol, the plan position it reads at run time (ir/positions.h), or -1 when
  /// the compiled graph did not number it (its value is then fixed).
  std::vector<std::pair<int, int64_t>> offset_positions;  // (symbol, position)
  /// The symbols' values for a run with `positions` (the plan's; empty: as compiled).
  std::vector<int64_t> ExtentsFor(absl::Span<const int64_t> positions) const;
  /// Whether every offset symbol reads a position: the kernel serves every position.
  bool OffsetsArePositions() const;
  /// Canonical text: ops, dtypes, symbolic shapes, attributes, buffer roles.
  std::string key_text;
  std::string name;  // "gpuc_" + hex hash of key_text: the symbol prefix of its functions

  /// The position of `node` among inputs, outputs and scratch (the buffer argument).
  int BufferIndex(const ir::Node* node) const;
  int num_buffers() const {
    return static_cast<int>(inputs.size() + outputs.size() + scratch.size());
  }
  /// Elements per row of `phase` relative to a reduce row (row_local kernels): the product of
  /// the reduced extents for a store of the reduced shape, 1 for a store of the kept shape.
  int64_t RowScale(const Phase& phase) const;
  /// The axes of reduced_shape that are not reduced, in order.
  std::vector<int> KeptAxes() const;
  /// How many rows `phase` has.
  int64_t RowCount(const Phase& phase) const;

  /// The shape each node is indexed in. A loop kernel of elementwise ops iterates its
  /// output with contiguous axes collapsed: adjacent axes that every input either spans
  /// fully or broadcasts along together become one ([8,16,32] + [16,32] is [8,512] + [1,512];
  /// a same-shape kernel is one flat loop). Other kernels use the nodes' own shapes.
  const ir::Shape& ShapeOf(const ir::Node* node) const {
    auto it = collapsed.find(node);
    return it == collapsed.end() ? node->shape() : it->second;
  }
  absl::flat_hash_map<const ir::Node*, ir::Shape> collapsed;

  /// Outputs written over an input's storage (buffer planning decided it, see
  /// passes::BufferPlan::in_place): output -> input.
  absl::flat_hash_map<const ir::Node*, const ir::Node*> in_place;

  absl::flat_hash_map<const ir::Node*, int> buffer_index;
};

/// Whether code generation can compile this kernel (library ops and scans are not fused
/// kernels; the host back end runs them itself).
bool IsCompilable(const ir::FusedKernel& kernel);

/// `in_place`: outputs to write over an input's storage (output -> input), as the buffer plan
/// decided; part of the key. `min_index_bits` 64 keeps 64-bit indexing for small kernels too
/// (the execution options' GPUC_INDEX_BITS: tests run the 64-bit path on arrays that fit).
absl::StatusOr<KernelSpec> BuildKernelSpec(
    const ir::FusedKernel& kernel,
    const absl::flat_hash_map<const ir::Node*, const ir::Node*>& in_place = {},
    int min_index_bits = 32);

/// A stable 64-bit hash (xxh3, the same on every machine and run; never std::hash).
uint64_t StableHash(std::string_view text);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_KERNEL_SPEC_H_
