//===- host_sort.cc - sort and argsort on the host, typed and threaded ----===//
#include "lib/backend/host/host_sort.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <utility>
#include <vector>

#include "ir/half.h"
#include "ir/sort_order.h"
#include "runtime/thread_pool.h"

namespace gpuc::detail {
namespace {

using ir::DType;

// Elements per chunk of lines handed to one thread: below this a line costs less to sort
// than a dispatch.
constexpr int64_t kElementsPerChunk = 1 << 14;
// A single line at least this long is sorted in pieces on every thread, then merged.
constexpr int64_t kParallelLine = 1 << 16;

// Sorts every line of `input` whose elements are `Stored` in memory and compare as `Key`.
template <typename Stored, typename Key, typename ToKey>
void SortLines(const ir::Node& node, const ir::HostTensor& input, ir::HostTensor& out,
               ToKey to_key) {
  const int axis = static_cast<int>(*node.attrs().Get<int64_t>("axis"));
  const ir::AxisLines l = ir::LinesAlong(input.shape(), axis);
  const bool values = node.op() == ir::OpCode::kSort;
  const Stored* in = reinterpret_cast<const Stored*>(input.data());
  const int64_t lines = l.outer * l.inner;
  runtime::ThreadPool& pool = runtime::ThreadPool::Shared(0);
  auto before = [](const std::pair<Key, int64_t>& a, const std::pair<Key, int64_t>& b) {
    return ir::SortsBefore(a.first, b.first);
  };
  // One line too long for one thread (a flattened array): its pieces sorted in parallel, then
  // merged (std::inplace_merge keeps the stable order: the left piece's equal elements first).
  auto sort_line = [&](std::vector<std::pair<Key, int64_t>>& line) {
    const int64_t pieces = lines == 1 && l.extent >= kParallelLine ? pool.size() : 1;
    if (pieces <= 1) {
      std::stable_sort(line.begin(), line.end(), before);
      return;
    }
    const int64_t size = (l.extent + pieces - 1) / pieces;
    auto edge = [&](int64_t p) { return line.begin() + std::min(l.extent, p * size); };
    pool.ParallelFor(pieces, 1, [&](int64_t b, int64_t e, int64_t) {
      for (int64_t p = b; p < e; ++p) std::stable_sort(edge(p), edge(p + 1), before);
    });
    for (int64_t width = 1; width < pieces; width *= 2) {
      for (int64_t p = 0; p + width < pieces; p += 2 * width) {
        std::inplace_merge(edge(p), edge(p + width), edge(std::min(pieces, p + 2 * width)), before);
      }
    }
  };
  // A partition (kth): a selection per position, each on what lies after the previous one,
  // as NumPy's introselect with several kth.
  const std::vector<int64_t>* kth = node.attrs().Get<std::vector<int64_t>>("kth");
  auto select = [&](std::vector<std::pair<Key, int64_t>>& line) {
    auto from = line.begin();
    for (int64_t k : *kth) {
      std::nth_element(from, line.begin() + k, line.end(), before);
      from = line.begin() + k + 1;
    }
  };
  auto sort = [&](int64_t begin, int64_t end, int64_t) {
    std::vector<std::pair<Key, int64_t>> line(static_cast<size_t>(l.extent));
    for (int64_t n = begin; n < end; ++n) {
      const int64_t base = (n / l.inner) * l.extent * l.inner + n % l.inner;
      for (int64_t k = 0; k < l.extent; ++k) line[k] = {to_key(in[base + k * l.inner]), k};
      if (kth != nullptr) {
        select(line);
      } else {
        sort_line(line);
      }
      if (values) {
        Stored* to = reinterpret_cast<Stored*>(out.data());
        for (int64_t k = 0; k < l.extent; ++k) {
          to[base + k * l.inner] = in[base + line[k].second * l.inner];
        }
      } else {
        int64_t* to = reinterpret_cast<int64_t*>(out.data());
        for (int64_t k = 0; k < l.extent; ++k) to[base + k * l.inner] = line[k].second;
      }
    }
  };
  if (lines == 0) return;
  const int64_t grain = std::max<int64_t>(1, kElementsPerChunk / std::max<int64_t>(1, l.extent));
  pool.ParallelFor(lines, grain, sort);
}

template <typename T>
void SortLinesOf(const ir::Node& node, const ir::HostTensor& input, ir::HostTensor& out) {
  SortLines<T, T>(node, input, out, [](T v) { return v; });
}

}  // namespace

bool IsSortNode(const ir::Node& node) {
  return node.op() == ir::OpCode::kSort || node.op() == ir::OpCode::kArgSort;
}

ir::HostTensor HostSort(const ir::Node& node, const ir::HostTensor& input) {
  ir::HostTensor out = ir::HostTensor::Uninitialized(node.type());
  switch (input.dtype()) {
    case DType::kBool:
      SortLines<uint8_t, uint8_t>(node, input, out, [](uint8_t v) { return v; });
      break;
    case DType::kInt8:
      SortLinesOf<int8_t>(node, input, out);
      break;
    case DType::kInt16:
      SortLinesOf<int16_t>(node, input, out);
      break;
    case DType::kInt32:
      SortLinesOf<int32_t>(node, input, out);
      break;
    case DType::kInt64:
      SortLinesOf<int64_t>(node, input, out);
      break;
    case DType::kUInt8:
      SortLinesOf<uint8_t>(node, input, out);
      break;
    case DType::kUInt16:
      SortLinesOf<uint16_t>(node, input, out);
      break;
    case DType::kUInt32:
      SortLinesOf<uint32_t>(node, input, out);
      break;
    case DType::kUInt64:
      SortLinesOf<uint64_t>(node, input, out);
      break;
    case DType::kFloat16:
      SortLines<uint16_t, float>(node, input, out, [](uint16_t bits) {
        return static_cast<float>(ir::HalfBitsToDouble(bits));
      });
      break;
    case DType::kBFloat16:
      SortLines<uint16_t, float>(node, input, out, [](uint16_t bits) {
        return static_cast<float>(ir::BFloat16BitsToDouble(bits));
      });
      break;
    case DType::kFloat32:
      SortLinesOf<float>(node, input, out);
      break;
    case DType::kFloat64:
      SortLinesOf<double>(node, input, out);
      break;
    case DType::kComplex64:
      SortLinesOf<std::complex<float>>(node, input, out);
      break;
    case DType::kComplex128:
      SortLinesOf<std::complex<double>>(node, input, out);
      break;
  }
  return out;
}

}  // namespace gpuc::detail
