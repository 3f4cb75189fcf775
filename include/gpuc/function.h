//===- gpuc/function.h - compile(): trace once, replay the plan -----------===//
//
// gpuc::compile(fn) wraps a C++ function of Arrays. The first call with a given signature (the
// dtypes and shapes of the arguments) runs fn on placeholder arrays, recording its graph once;
// the optimized plan is kept, and every later call with that signature runs the plan directly,
// paying no recording or pass cost. fn must be a pure function of its arguments: it may read
// captured arrays (their current values are baked into the plan) but must not read data of its
// arguments (item(), to_host()), since they are placeholders while tracing.
//
//   auto f = gpuc::compile([](gpuc::Array x, gpuc::Array y) { return gpuc::exp(x) * y; });
//   gpuc::Array z = f(a, b);  // traced
//   gpuc::Array w = f(c, d);  // same shapes and dtypes: the cached plan runs
//
// fn returns an Array, a std::vector<Array> or a std::tuple of Arrays; the compiled function
// returns the same.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_FUNCTION_H_
#define GPUC_FUNCTION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpuc/array.h"

namespace gpuc {

struct FunctionStats {
  int64_t calls = 0;
  int64_t traces = 0;  // signatures seen, each traced once
};

namespace detail {

class FunctionImpl;
using TraceFn = std::function<std::vector<Array>(const std::vector<Array>&)>;
std::shared_ptr<FunctionImpl> NewFunction();
std::vector<Array> CallFunction(FunctionImpl& function, const std::vector<Array>& args,
                                const TraceFn& trace);
FunctionStats GetFunctionStats(const FunctionImpl& function);

inline std::vector<Array> ToArrays(Array a) { return {std::move(a)}; }
inline std::vector<Array> ToArrays(std::vector<Array> v) { return v; }
template <typename... T>
std::vector<Array> ToArrays(std::tuple<T...> t) {
  return std::apply([](auto&&... a) { return std::vector<Array>{Array(a)...}; }, std::move(t));
}

template <typename R>
R FromArrays(std::vector<Array> out) {
  if constexpr (std::is_same_v<R, Array>) {
    return std::move(out[0]);
  } else if constexpr (std::is_same_v<R, std::vector<Array>>) {
    return out;
  } else {
    return [&]<size_t... I>(std::index_sequence<I...>) { return R(std::move(out[I])...); }
    (std::make_index_sequence<std::tuple_size_v<R>>{});
  }
}

}  // namespace detail

template <typename F>
class Function {
 public:
  explicit Function(F fn) : fn_(std::move(fn)), impl_(detail::NewFunction()) {}

  template <typename... A>
  auto operator()(const A&... args) const {
    static_assert((std::is_same_v<A, Array> && ...), "compiled functions take gpuc::Array");
    using R = std::invoke_result_t<const F&, const A&...>;
    const detail::TraceFn trace = [this](const std::vector<Array>& params) {
      return [&]<size_t... I>(std::index_sequence<I...>) {
        return detail::ToArrays(fn_(params[I]...));
      }
      (std::index_sequence_for<A...>{});
    };
    return detail::FromArrays<R>(detail::CallFunction(*impl_, {args...}, trace));
  }

  FunctionStats stats() const { return detail::GetFunctionStats(*impl_); }

 private:
  F fn_;
  std::shared_ptr<detail::FunctionImpl> impl_;
};

template <typename F>
Function<F> compile(F fn) {
  return Function<F>(std::move(fn));
}

}  // namespace gpuc

#endif  // GPUC_FUNCTION_H_
