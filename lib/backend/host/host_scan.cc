//===- host_scan.cc - cumsum and cumprod on the host, typed and threaded --===//
#include "lib/backend/host/host_scan.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "ir/complex_arithmetic.h"
#include "ir/half.h"
#include "runtime/thread_pool.h"

namespace gpuc::detail {
namespace {

using ir::DType;

// Elements per chunk of outer blocks handed to one thread.
constexpr int64_t kElementsPerChunk = 1 << 15;

// The running combination in `Acc`, stored as `Out`; elements read as `In`.
template <typename In, typename Acc, typename Combine, typename Load, typename Store>
void ScanLines(const ir::Node& node, const ir::HostTensor& input, ir::HostTensor& out, Acc identity,
               Combine combine, Load load, Store store) {
  const int axis = static_cast<int>(*node.attrs().Get<int64_t>("axis"));
  const auto [extent, inner, outer] = ir::LinesAlong(input.shape(), axis);
  if (outer == 0) return;
  const In* in = reinterpret_cast<const In*>(input.data());
  std::byte* to = out.data();
  const int64_t block = extent * inner;
  const int64_t grain = std::max<int64_t>(1, kElementsPerChunk / std::max<int64_t>(1, block));
  runtime::ThreadPool::Shared(0).ParallelFor(
      outer, grain, [&](int64_t begin, int64_t end, int64_t) {
        if (inner == 1) {
          // One contiguous line per outer index: the running value stays in a register (in
          // the vector below, every store to `to` might overwrite it, so each step reloaded
          // it: 2.5x slower on a long cumsum).
          for (int64_t o = begin; o < end; ++o) {
            Acc running = identity;
            for (int64_t k = o * extent, stop = k + extent; k < stop; ++k) {
              running = combine(running, load(in[k]));
              store(to, k, running);
            }
          }
          return;
        }
        std::vector<Acc> running(static_cast<size_t>(inner));
        for (int64_t o = begin; o < end; ++o) {
          std::fill(running.begin(), running.end(), identity);
          const int64_t base = o * block;
          for (int64_t k = 0; k < extent; ++k) {
            const int64_t row = base + k * inner;
            for (int64_t i = 0; i < inner; ++i) {
              running[i] = combine(running[i], load(in[row + i]));
              store(to, row + i, running[i]);
            }
          }
        }
      });
}

template <typename Out>
void StoreAs(std::byte* to, int64_t i, Out v) {
  std::memcpy(to + i * static_cast<int64_t>(sizeof(Out)), &v, sizeof(Out));
}

// Integers and bools: the accumulator's modular arithmetic (NumPy's wrap-around), done
// unsigned so that signed overflow is defined.
template <typename In, typename Out>
void IntegerScan(const ir::Node& node, const ir::HostTensor& input, ir::HostTensor& out) {
  const bool sum = node.op() == ir::OpCode::kCumSum;
  ScanLines<In, uint64_t>(
      node, input, out, sum ? uint64_t{0} : uint64_t{1},
      [sum](uint64_t a, uint64_t b) { return sum ? a + b : a * b; },
      [](In v) { return static_cast<uint64_t>(static_cast<Out>(v)); },
      [](std::byte* to, int64_t i, uint64_t v) { StoreAs<Out>(to, i, static_cast<Out>(v)); });
}

template <typename T>
T Product(T a, T b) {
  return a * b;
}

// NumPy's complex product, not std::complex's (ir/complex_arithmetic.h).
template <typename T>
std::complex<T> Product(std::complex<T> a, std::complex<T> b) {
  return ir::NumpyMultiply(a, b);
}

template <typename T>
void FloatScan(const ir::Node& node, const ir::HostTensor& input, ir::HostTensor& out) {
  const bool sum = node.op() == ir::OpCode::kCumSum;
  ScanLines<T, T>(
      node, input, out, sum ? T(0) : T(1), [sum](T a, T b) { return sum ? a + b : Product(a, b); },
      [](T v) { return v; }, [](std::byte* to, int64_t i, T v) { StoreAs<T>(to, i, v); });
}

// float16 and bfloat16: each step rounded to the dtype, as the dtype's own loop does (the sum
// or product of two such values is exact in float, so one rounding follows).
template <double (*ToDouble)(uint16_t), uint16_t (*FromDouble)(double)>
void HalfScan(const ir::Node& node, const ir::HostTensor& input, ir::HostTensor& out) {
  const bool sum = node.op() == ir::OpCode::kCumSum;
  ScanLines<uint16_t, uint16_t>(
      node, input, out, FromDouble(sum ? 0.0 : 1.0),
      [sum](uint16_t a, uint16_t b) {
        const float x = static_cast<float>(ToDouble(a)), y = static_cast<float>(ToDouble(b));
        return FromDouble(static_cast<double>(sum ? x + y : x * y));
      },
      [](uint16_t v) { return v; },
      [](std::byte* to, int64_t i, uint16_t v) { StoreAs<uint16_t>(to, i, v); });
}

}  // namespace

bool HostScanHandles(const ir::Node& node) {
  return node.op() == ir::OpCode::kCumSum || node.op() == ir::OpCode::kCumProd;
}

ir::HostTensor HostScan(const ir::Node& node, const ir::HostTensor& input) {
  ir::HostTensor out = ir::HostTensor::Uninitialized(node.type());
  const DType from = input.dtype(), to = node.dtype();
  auto integers = [&]<typename Out>() {
    switch (from) {
      case DType::kBool:
        return IntegerScan<uint8_t, Out>(node, input, out);
      case DType::kInt8:
        return IntegerScan<int8_t, Out>(node, input, out);
      case DType::kInt16:
        return IntegerScan<int16_t, Out>(node, input, out);
      case DType::kInt32:
        return IntegerScan<int32_t, Out>(node, input, out);
      case DType::kInt64:
        return IntegerScan<int64_t, Out>(node, input, out);
      case DType::kUInt8:
        return IntegerScan<uint8_t, Out>(node, input, out);
      case DType::kUInt16:
        return IntegerScan<uint16_t, Out>(node, input, out);
      case DType::kUInt32:
        return IntegerScan<uint32_t, Out>(node, input, out);
      default:
        return IntegerScan<uint64_t, Out>(node, input, out);
    }
  };
  switch (to) {
    case DType::kInt64:
      integers.operator()<int64_t>();
      break;
    case DType::kUInt64:
      integers.operator()<uint64_t>();
      break;
    case DType::kFloat16:
      HalfScan<ir::HalfBitsToDouble, ir::DoubleToHalfBits>(node, input, out);
      break;
    case DType::kBFloat16:
      HalfScan<ir::BFloat16BitsToDouble, ir::DoubleToBFloat16Bits>(node, input, out);
      break;
    case DType::kFloat32:
      FloatScan<float>(node, input, out);
      break;
    case DType::kFloat64:
      FloatScan<double>(node, input, out);
      break;
    case DType::kComplex64:
      FloatScan<std::complex<float>>(node, input, out);
      break;
    default:
      FloatScan<std::complex<double>>(node, input, out);
      break;
  }
  return out;
}

}  // namespace gpuc::detail
