//===- gpuc/loops.h - Loops traced once: fori_loop and while_loop ---------===//
//
// A C++ loop over lazy ops records its step anew every iteration (and the loop-step cut finds
// the step's plan by structure: docs/science.md). fori_loop and while_loop record the step
// once: the body is traced over placeholders for the loop index and the carried state, its
// plan is compiled once, and every iteration runs that plan on the previous iteration's
// results, with no recording, keying or planning per step (JAX's lax.fori_loop and
// lax.while_loop, with the same rules).
//
//   // u[0] = sin(0.05 t); u[1:-1] += r * (u[:-2] - 2 u[1:-1] + u[2:]) for 500 steps
//   gpuc::Array u = gpuc::fori_loop(0, 500, [&](const gpuc::Array& t, const gpuc::Array& u0) {
//     gpuc::Array u = u0;  // a handle on the state: writing through it records the next value
//     u(0) = gpuc::sin(0.05 * t);
//     u(Slice(1, -1)) = u(Slice(1, -1)) + r * (u(Slice(0, -2)) - 2.0 * u(Slice(1, -1)) +
//                                             u(Slice(2, none)));
//     return u;
//   }, initial);
//
// Rules (checked; a gpuc::Error names the loop and the offending state element):
// - The body returns exactly the state's arrays, each with its dtype and shape.
// - The index is an int64 0-d array; the body may use it in any op (as a value, not as a
//   C++ integer: it has no value while the body is traced). Slice bounds and subscripts are
//   C++ integers, so a window that moves with the index is a gpuc::take with index-dependent
//   indices, not a Slice(i, ...).
// - The body may read arrays defined outside it (captured: their values when the loop starts)
//   and must not read any array's data (item(), to_host(), eval()) of the state or index.
// - Random draws inside a body (gpuc::random) differ from step to step: each step passes the
//   body a new key that the draws mix into theirs (the body is traced once, so without it every
//   step would draw the same numbers). A while_loop's condition draws the same every step.
// - A loop inside a loop's body or inside a gpuc::compile function is not supported yet (it
//   needs a loop op in the graph); the error says so.
//
// Writes: the carried state belongs to the loop after the first step, so on the host a write
// into a state array (`u(k) = v` where u holds the body's state argument) touches only its
// region, in place, from the second step on, under the rules of evaluation's in-place writes
// (lib/eval/in_place_writes.h); the first step reads the caller's arrays, which keep their
// values.
//
// The result arrays are evaluated. With lower >= upper the body does not run and the state
// comes back as given (evaluated).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LOOPS_H_
#define GPUC_LOOPS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "gpuc/array.h"

namespace gpuc {

/// The body of a fori_loop over several arrays: (index, state) -> next state.
using ForiBody =
    std::function<std::vector<Array>(const Array& index, const std::vector<Array>& state)>;

/// Runs `state = body(i, state)` for i = lower, lower + 1, ..., upper - 1 and returns the final
/// state. The body is traced once and its plan runs every step.
std::vector<Array> fori_loop(int64_t lower, int64_t upper, const ForiBody& body,
                             const std::vector<Array>& state);

/// The same over one array.
Array fori_loop(int64_t lower, int64_t upper,
                const std::function<Array(const Array& index, const Array& state)>& body,
                const Array& state);

/// The condition and body of a while_loop over several arrays.
using WhileCondition = std::function<Array(const std::vector<Array>& state)>;
using WhileBody = std::function<std::vector<Array>(const std::vector<Array>& state)>;

/// Runs `state = body(state)` while `cond(state)` (a bool 0-d array) holds, and returns the
/// final state. Both are traced once; the condition is read on the host before every step.
std::vector<Array> while_loop(const WhileCondition& cond, const WhileBody& body,
                              const std::vector<Array>& state);

/// The same over one array.
Array while_loop(const std::function<Array(const Array& state)>& cond,
                 const std::function<Array(const Array& state)>& body, const Array& state);

/// What the loops of this process did.
struct LoopStats {
  int64_t loops = 0;           // fori_loop and while_loop calls
  int64_t steps = 0;           // body runs
  int64_t traces = 0;          // bodies and conditions traced (once per loop call)
  int64_t in_place_steps = 0;  // steps whose writes into the state went in place
};
LoopStats loop_stats();

}  // namespace gpuc

#endif  // GPUC_LOOPS_H_
