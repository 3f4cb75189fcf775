//===- gpu_sort.cc - sort and argsort as CUDA kernels ----------------------===//
#include "lib/backend/cuda/gpu_sort.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "ir/shape.h"
#include "lib/backend/cuda/gpu_source_module.h"

namespace gpuc::detail {
namespace {

// After a prelude defining K (the unsigned type as wide as an element), GPUC_KIND (0 bool or
// unsigned, 1 signed, 2 float), GPUC_INF_BITS (a float's +inf bits), GPUC_ARGSORT and
// GPUC_PAYLOAD (whether positions travel with the keys). Every kernel parameter is 8 bytes.
constexpr char kKernels[] = R"cuda(
typedef long long i64;
#define THREADS 256
#define WARPS (THREADS / 32)
#define RADIX 256
#define ITEMS 16
#define TILE (THREADS * ITEMS)
#define TINY 32
#define SMALL 2048
#define FULL 0xffffffffu

// The element's bits as a key in NumPy's order: -0.0 as 0.0 and every NaN as the largest key
// (no number has it: +inf's key is below), so values NumPy calls equal tie.
__device__ __forceinline__ K ToKey(K b) {
  const K sign = (K)((K)1 << (sizeof(K) * 8 - 1));
#if GPUC_KIND == 2
  const K magnitude = (K)(b & (K)~sign);
  if (magnitude > (K)GPUC_INF_BITS) return (K)~(K)0;
  if (magnitude == 0) return sign;
  return (b & sign) ? (K)~b : (K)(b | sign);
#elif GPUC_KIND == 1
  return (K)(b ^ sign);
#else
  return b;
#endif
}

// An integer's bits back from its key (floats come back from the input instead).
__device__ __forceinline__ K FromKey(K k) {
#if GPUC_KIND == 1
  return (K)(k ^ (K)((K)1 << (sizeof(K) * 8 - 1)));
#else
  return k;
#endif
}

// The result element at `at` for the element of key `key` from position `pos` of its line
// (`line` points at the input line's first element, `inner` apart).
__device__ __forceinline__ void Store(void* out, i64 at, K key, unsigned pos, const K* line,
                                      i64 inner) {
#if GPUC_ARGSORT
  ((i64*)out)[at] = (i64)pos;
#elif GPUC_KIND == 2
  ((K*)out)[at] = line[(i64)pos * inner];
#else
  ((K*)out)[at] = FromKey(key);
#endif
}

__device__ __forceinline__ i64 LineStart(i64 line, i64 extent, i64 inner) {
  const i64 o = line / inner;
  return o * extent * inner + (line - o * inner);
}

// Lines of at most TINY: a thread per line, insertion sort (a later equal key stays after).
extern "C" __global__ void gpuc_sort_tiny(const K* x, void* out, i64 outer, i64 extent,
                                          i64 inner) {
  const i64 lines = outer * inner;
  for (i64 line = (i64)blockIdx.x * blockDim.x + threadIdx.x; line < lines;
       line += (i64)gridDim.x * blockDim.x) {
    const i64 base = LineStart(line, extent, inner);
    K keys[TINY];
    unsigned char pos[TINY];
    for (int k = 0; k < extent; ++k) {
      const K key = ToKey(x[base + k * inner]);
      int j = k;
      for (; j > 0 && keys[j - 1] > key; --j) {
        keys[j] = keys[j - 1];
        pos[j] = pos[j - 1];
      }
      keys[j] = key;
      pos[j] = (unsigned char)k;
    }
    for (int k = 0; k < extent; ++k) Store(out, base + k * inner, keys[k], pos[k], x + base, inner);
  }
}

// Lines of at most SMALL: a block per line, a bitonic network over `padded` (a power of two)
// (key, position) pairs in shared memory; padding sorts after every element.
extern "C" __global__ void gpuc_sort_block(const K* x, void* out, i64 outer, i64 extent,
                                           i64 inner, i64 padded) {
  __shared__ K keys[SMALL];
  __shared__ unsigned short pos[SMALL];
  const i64 lines = outer * inner;
  for (i64 line = blockIdx.x; line < lines; line += gridDim.x) {
    const i64 base = LineStart(line, extent, inner);
    for (int i = threadIdx.x; i < padded; i += THREADS) {
      keys[i] = i < extent ? ToKey(x[base + i * inner]) : (K)~(K)0;
      pos[i] = (unsigned short)i;
    }
    __syncthreads();
    for (unsigned size = 2; size <= padded; size <<= 1) {
      for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
        for (unsigned i = threadIdx.x; i < padded / 2; i += THREADS) {
          const unsigned lo = 2 * i - (i & (stride - 1)), hi = lo + stride;
          const K kl = keys[lo], kh = keys[hi];
          const unsigned short pl = pos[lo], ph = pos[hi];
          const bool greater = kl > kh || (kl == kh && pl > ph);
          if (greater == ((lo & size) == 0)) {
            keys[lo] = kh;
            keys[hi] = kl;
            pos[lo] = ph;
            pos[hi] = pl;
          }
        }
        __syncthreads();
      }
    }
    for (int i = threadIdx.x; i < extent; i += THREADS) {
      Store(out, base + i * inner, keys[i], pos[i], x + base, inner);
    }
    __syncthreads();  // the next line reuses keys and pos
  }
}

// An exclusive sum of one value per thread over the block; *total gets the block's sum.
__device__ unsigned BlockExclusiveSum(unsigned v, unsigned* total) {
  __shared__ unsigned warp_totals[WARPS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned x = v;
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned before = __shfl_up_sync(FULL, x, o);
    if (lane >= o) x += before;
  }
  if (lane == 31) warp_totals[warp] = x;
  __syncthreads();
  if (warp == 0) {
    unsigned w = lane < WARPS ? warp_totals[lane] : 0;
    for (int o = 1; o < WARPS; o <<= 1) {
      const unsigned before = __shfl_up_sync(FULL, w, o);
      if (lane >= o) w += before;
    }
    if (lane < WARPS) warp_totals[lane] = w;
  }
  __syncthreads();
  const unsigned exclusive = x - v + (warp > 0 ? warp_totals[warp - 1] : 0);
  *total = warp_totals[WARPS - 1];
  __syncthreads();  // warp_totals is reused by the next call
  return exclusive;
}

// Every line's keys (and positions) in line order, contiguous.
extern "C" __global__ void gpuc_sort_load(const K* x, K* keys, unsigned* pos, i64 outer,
                                          i64 extent, i64 inner) {
  const i64 n = outer * inner * extent;
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += (i64)gridDim.x * blockDim.x) {
    const i64 line = e / extent, k = e - line * extent;
    keys[e] = ToKey(x[LineStart(line, extent, inner) + k * inner]);
#if GPUC_PAYLOAD
    pos[e] = (unsigned)k;
#endif
  }
}

// Block b: tile b % tiles of line b / tiles; its count of each digit into
// counts[(line * RADIX + digit) * tiles + tile].
extern "C" __global__ void gpuc_sort_count(const K* keys, unsigned* counts, i64 lines, i64 extent,
                                           i64 tiles, i64 shift) {
  __shared__ unsigned histogram[RADIX];
  for (i64 b = blockIdx.x; b < lines * tiles; b += gridDim.x) {
    const i64 line = b / tiles, tile = b - line * tiles;
    histogram[threadIdx.x] = 0;
    __syncthreads();
    const K* k = keys + line * extent;
    for (int j = 0; j < ITEMS; ++j) {
      const i64 e = tile * TILE + (i64)j * THREADS + threadIdx.x;
      const unsigned digit = e < extent ? (unsigned)(k[e] >> shift) & (RADIX - 1) : RADIX;
      const unsigned peers = __match_any_sync(FULL, digit);
      if (digit < RADIX && (peers & ((1u << (threadIdx.x & 31)) - 1)) == 0) {
        atomicAdd(&histogram[digit], __popc(peers));
      }
    }
    __syncthreads();
    counts[(line * RADIX + threadIdx.x) * tiles + tile] = histogram[threadIdx.x];
    __syncthreads();
  }
}

// Block per (line, digit): its tiles' counts replaced by their exclusive prefixes, its total
// into totals.
extern "C" __global__ void gpuc_sort_offsets(unsigned* counts, unsigned* totals, i64 pairs,
                                             i64 tiles) {
  for (i64 b = blockIdx.x; b < pairs; b += gridDim.x) {
    unsigned* c = counts + b * tiles;
    const i64 per = (tiles + THREADS - 1) / THREADS;
    const i64 begin = min((i64)threadIdx.x * per, tiles), end = min(begin + per, tiles);
    unsigned sum = 0;
    for (i64 i = begin; i < end; ++i) sum += c[i];
    unsigned total;
    unsigned before = BlockExclusiveSum(sum, &total);
    for (i64 i = begin; i < end; ++i) {
      const unsigned v = c[i];
      c[i] = before;
      before += v;
    }
    if (threadIdx.x == 0) totals[b] = total;
  }
}

// Block b: tile b % tiles of line b / tiles, each key (and position) to its digit's place:
// after every key of a smaller digit, of an earlier tile, and of an earlier element of this
// tile with its digit (ranked item by item: a warp's equal digits by matching, the warps
// before it through shared counts).
extern "C" __global__ void gpuc_sort_scatter(const K* keys_in, const unsigned* pos_in,
                                             K* keys_out, unsigned* pos_out,
                                             const unsigned* counts, const unsigned* totals,
                                             i64 lines, i64 extent, i64 tiles, i64 shift) {
  __shared__ unsigned next[RADIX];
  __shared__ unsigned warp_counts[WARPS][RADIX];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned lower = (1u << lane) - 1;
  for (i64 b = blockIdx.x; b < lines * tiles; b += gridDim.x) {
    const i64 line = b / tiles, tile = b - line * tiles;
    const i64 pair = line * RADIX + threadIdx.x;
    unsigned all;
    const unsigned digit_start = BlockExclusiveSum(totals[pair], &all);
    next[threadIdx.x] = digit_start + counts[pair * tiles + tile];
    for (int w = 0; w < WARPS; ++w) warp_counts[w][threadIdx.x] = 0;
    __syncthreads();
    const K* kin = keys_in + line * extent;
    K* kout = keys_out + line * extent;
#if GPUC_PAYLOAD
    const unsigned* pin = pos_in + line * extent;
    unsigned* pout = pos_out + line * extent;
#endif
    for (int j = 0; j < ITEMS; ++j) {
      const i64 first = tile * TILE + (i64)j * THREADS;
      if (first >= extent) break;  // the same for the whole block
      const i64 e = first + threadIdx.x;
      const bool valid = e < extent;
      const K key = valid ? kin[e] : (K)0;
      const unsigned digit = valid ? (unsigned)(key >> shift) & (RADIX - 1) : RADIX;
      const unsigned peers = __match_any_sync(FULL, digit);
      const unsigned rank = __popc(peers & lower);
      if (valid && rank == 0) warp_counts[warp][digit] = __popc(peers);
      __syncthreads();
      if (valid) {
        unsigned at = next[digit] + rank;
        for (int w = 0; w < warp; ++w) at += warp_counts[w][digit];
        kout[at] = key;
#if GPUC_PAYLOAD
        pout[at] = pin[e];
#endif
      }
      __syncthreads();
      unsigned added = 0;
      for (int w = 0; w < WARPS; ++w) {
        added += warp_counts[w][threadIdx.x];
        warp_counts[w][threadIdx.x] = 0;
      }
      next[threadIdx.x] += added;
      __syncthreads();
    }
  }
}

// The sorted keys (or positions) of every line into the result's layout.
extern "C" __global__ void gpuc_sort_store(const K* x, const K* keys, const unsigned* pos,
                                           void* out, i64 outer, i64 extent, i64 inner) {
  const i64 n = outer * inner * extent;
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += (i64)gridDim.x * blockDim.x) {
    const i64 line = e / extent, k = e - line * extent;
    const i64 base = LineStart(line, extent, inner);
#if GPUC_PAYLOAD
    Store(out, base + k * inner, keys[e], pos[e], x + base, inner);
#else
    Store(out, base + k * inner, keys[e], 0, x + base, inner);
#endif
  }
}
)cuda";

constexpr int64_t kTiny = 32;
constexpr int64_t kSmall = 2048;
constexpr int64_t kTile = 256 * 16;
constexpr int64_t kRadix = 256;

// The bits of +inf in `dtype` (a float).
uint64_t InfinityBits(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kFloat16:
      return 0x7C00;
    case ir::DType::kBFloat16:
      return 0x7F80;
    case ir::DType::kFloat32:
      return 0x7F800000;
    default:
      return 0x7FF0000000000000;
  }
}

const char* UnsignedOfSize(int64_t bytes) {
  switch (bytes) {
    case 1:
      return "unsigned char";
    case 2:
      return "unsigned short";
    case 4:
      return "unsigned";
    default:
      return "unsigned long long";
  }
}

bool CarriesPositions(const ir::Node& sort) {
  return sort.op() == ir::OpCode::kArgSort || ir::IsFloat(sort.operand(0).dtype());
}

}  // namespace

bool IsGpuSortNode(const ir::Node& node) {
  return node.op() == ir::OpCode::kSort || node.op() == ir::OpCode::kArgSort;
}

std::string GpuSortRefusal(const ir::Node& sort) {
  const ir::DType dtype = sort.operand(0).dtype();
  if (ir::IsComplex(dtype)) {
    return absl::StrCat(ir::OpName(sort.op()), " of ", ir::DTypeName(dtype),
                        ": no GPU sort kernel for complex numbers");
  }
  const int axis = static_cast<int>(*sort.attrs().Get<int64_t>("axis"));
  if (ir::LinesAlong(sort.operand(0).shape(), axis).extent >= (int64_t{1} << 32)) {
    return absl::StrCat(ir::OpName(sort.op()), " of ", sort.operand(0).shape().ToString(),
                        ": no GPU sort kernel for lines of 2^32 elements or more");
  }
  return "";
}

std::string GpuSortKey(const ir::Node& sort) {
  return absl::StrCat("gpuc-sort-v1 ", ir::OpName(sort.op()), " ",
                      ir::DTypeName(sort.operand(0).dtype()));
}

std::string GpuSortSource(const ir::Node& sort) {
  const ir::DType dtype = sort.operand(0).dtype();
  const int kind = ir::IsFloat(dtype) ? 2 : ir::KindOf(dtype) == ir::DTypeKind::kSigned ? 1 : 0;
  return absl::StrCat("// ", GpuSortKey(sort), "\n", "typedef ",
                      UnsignedOfSize(ir::DTypeSize(dtype)), " K;\n", "#define GPUC_KIND ", kind,
                      "\n", "#define GPUC_INF_BITS ",
                      kind == 2 ? absl::StrCat(InfinityBits(dtype), "ull") : "0", "\n",
                      "#define GPUC_ARGSORT ", sort.op() == ir::OpCode::kArgSort ? 1 : 0, "\n",
                      "#define GPUC_PAYLOAD ", CarriesPositions(sort) ? 1 : 0, "\n", kKernels);
}

absl::StatusOr<std::shared_ptr<const GpuSortKernels>> LoadGpuSort(runtime::CudaDevice& device,
                                                                  const ir::Node& sort,
                                                                  const std::string& arch) {
  absl::StatusOr<std::unique_ptr<runtime::CudaModule>> module =
      LoadSourceModule(device, GpuSortSource(sort), "gpuc_sort.cu", GpuSortKey(sort), arch);
  if (!module.ok()) return module.status();
  auto kernels = std::make_shared<GpuSortKernels>();
  if (absl::Status s = FindKernels(**module, {{"gpuc_sort_tiny", &kernels->tiny},
                                              {"gpuc_sort_block", &kernels->block},
                                              {"gpuc_sort_load", &kernels->load},
                                              {"gpuc_sort_count", &kernels->count},
                                              {"gpuc_sort_offsets", &kernels->offsets},
                                              {"gpuc_sort_scatter", &kernels->scatter},
                                              {"gpuc_sort_store", &kernels->store}});
      !s.ok()) {
    return s;
  }
  kernels->module = *std::move(module);
  return kernels;
}

absl::StatusOr<std::vector<runtime::RecordedLaunch>> GpuSortLaunches(
    runtime::CudaDevice& device, runtime::CudaStream& stream, const GpuSortKernels& kernels,
    const ir::Node& sort, const DeviceTensor& input, const DeviceTensor& out,
    std::vector<std::shared_ptr<DeviceStorage>>& keep) {
  const int axis = static_cast<int>(*sort.attrs().Get<int64_t>("axis"));
  const auto [extent, inner, outer] = ir::LinesAlong(sort.operand(0).shape(), axis);
  std::vector<runtime::RecordedLaunch> launches;
  const int64_t lines = outer * inner, n = lines * extent;
  if (n == 0) return launches;
  const int64_t sms = std::max(1, device.properties().multiprocessors);
  auto word = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto capped = [&](int64_t blocks) {
    return runtime::LaunchDims{static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, sms * 64))};
  };
  const uint64_t x = input.address, to = out.address;
  if (extent <= kTiny) {
    launches.push_back({&kernels.tiny,
                        capped((lines + 255) / 256),
                        {256},
                        {x, to, word(outer), word(extent), word(inner)}});
    return launches;
  }
  if (extent <= kSmall) {
    const int64_t padded = int64_t{1} << std::bit_width(static_cast<uint64_t>(extent - 1));
    launches.push_back({&kernels.block,
                        capped(lines),
                        {256},
                        {x, to, word(outer), word(extent), word(inner), word(padded)}});
    return launches;
  }
  const int64_t key_bytes = ir::DTypeSize(sort.operand(0).dtype());
  const bool positions = CarriesPositions(sort);
  const int64_t tiles = (extent + kTile - 1) / kTile;
  auto scratch = [&](int64_t bytes) -> absl::StatusOr<uint64_t> {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s =
        DeviceStorage::Allocate(device, stream, static_cast<size_t>(bytes));
    if (!s.ok()) return s.status();
    keep.push_back(*s);
    return (*s)->address();
  };
  uint64_t keys[2], pos[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<uint64_t> k = scratch(n * key_bytes);
    if (!k.ok()) return k.status();
    keys[i] = *k;
    if (positions) {
      absl::StatusOr<uint64_t> p = scratch(n * 4);
      if (!p.ok()) return p.status();
      pos[i] = *p;
    }
  }
  absl::StatusOr<uint64_t> counts = scratch(lines * kRadix * tiles * 4);
  if (!counts.ok()) return counts.status();
  absl::StatusOr<uint64_t> totals = scratch(lines * kRadix * 4);
  if (!totals.ok()) return totals.status();
  const runtime::LaunchDims elementwise = capped((n + 255) / 256);
  launches.push_back({&kernels.load,
                      elementwise,
                      {256},
                      {x, keys[0], pos[0], word(outer), word(extent), word(inner)}});
  int from = 0;
  for (int64_t shift = 0; shift < key_bytes * 8; shift += 8, from ^= 1) {
    launches.push_back(
        {&kernels.count,
         capped(lines * tiles),
         {256},
         {keys[from], *counts, word(lines), word(extent), word(tiles), word(shift)}});
    launches.push_back({&kernels.offsets,
                        capped(lines * kRadix),
                        {256},
                        {*counts, *totals, word(lines * kRadix), word(tiles)}});
    launches.push_back({&kernels.scatter,
                        capped(lines * tiles),
                        {256},
                        {keys[from], pos[from], keys[from ^ 1], pos[from ^ 1], *counts, *totals,
                         word(lines), word(extent), word(tiles), word(shift)}});
  }
  launches.push_back({&kernels.store,
                      elementwise,
                      {256},
                      {x, keys[from], pos[from], to, word(outer), word(extent), word(inner)}});
  return launches;
}

}  // namespace gpuc::detail
