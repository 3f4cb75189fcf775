//===- gpu_scan.cc - cumsum and cumprod as CUDA kernels --------------------===//
#include "lib/backend/cuda/gpu_scan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/user_function.h"
#include "ir/shape.h"
#include "lib/backend/cuda/gpu_source_module.h"

namespace gpuc::detail {
namespace {

// After a prelude defining In (the input's element type), T (the result's), W (the unsigned
// type integer results wrap in), GPUC_INTEGER and GPUC_MUL (cumprod).
constexpr char kKernels[] = R"cuda(
typedef long long i64;
#define THREADS 256
#define ITEMS 8
#define TILE (THREADS * ITEMS)
#define FULL 0xffffffffu

__device__ __forceinline__ T Combine(T a, T b) {
#if GPUC_INTEGER && GPUC_MUL
  return (T)((W)a * (W)b);
#elif GPUC_INTEGER
  return (T)((W)a + (W)b);
#elif GPUC_MUL
  return a * b;
#else
  return a + b;
#endif
}

__device__ __forceinline__ T Identity() { return (T)(GPUC_MUL ? 1 : 0); }

// An inclusive scan of one value per thread over the block, in a fixed order; *total gets
// the block's total.
__device__ T BlockInclusiveScan(T v, T* total) {
  __shared__ T warp_totals[THREADS / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int o = 1; o < 32; o <<= 1) {
    const T before = __shfl_up_sync(FULL, v, o);
    if (lane >= o) v = Combine(before, v);
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    T w = lane < THREADS / 32 ? warp_totals[lane] : Identity();
    for (int o = 1; o < THREADS / 32; o <<= 1) {
      const T before = __shfl_up_sync(FULL, w, o);
      if (lane >= o) w = Combine(before, w);
    }
    if (lane < THREADS / 32) warp_totals[lane] = w;
  }
  __syncthreads();
  if (warp > 0) v = Combine(warp_totals[warp - 1], v);
  *total = warp_totals[THREADS / 32 - 1];
  __syncthreads();  // warp_totals is reused by the next call
  return v;
}

// A thread per line (outer x inner of them, lines `inner` apart element to element), each in
// order: the interpreter's order.
extern "C" __global__ void gpuc_scan_columns(const In* x, T* out, i64 outer, i64 extent,
                                             i64 inner) {
  const i64 lines = outer * inner;
  for (i64 line = (i64)blockIdx.x * blockDim.x + threadIdx.x; line < lines;
       line += (i64)gridDim.x * blockDim.x) {
    const i64 o = line / inner;
    i64 at = o * extent * inner + (line - o * inner);
    T running = Identity();
    for (i64 k = 0; k < extent; ++k, at += inner) {
      running = Combine(running, (T)x[at]);
      out[at] = running;
    }
  }
}

// Block b: tile b % tiles of contiguous line b / tiles; its total into totals[b].
extern "C" __global__ void gpuc_scan_totals(const In* x, T* totals, i64 lines, i64 extent,
                                            i64 tiles) {
  for (i64 b = blockIdx.x; b < lines * tiles; b += gridDim.x) {
    const i64 line = b / tiles, tile = b - line * tiles;
    const i64 first = tile * TILE + (i64)threadIdx.x * ITEMS;
    const In* row = x + line * extent;
    T v = Identity();
    for (int j = 0; j < ITEMS; ++j) {
      if (first + j < extent) v = Combine(v, (T)row[first + j]);
    }
    T total;
    BlockInclusiveScan(v, &total);
    if (threadIdx.x == 0) totals[b] = total;
  }
}

// Block per line: its tiles' totals replaced by their exclusive prefixes (each thread a
// contiguous run of tiles, in order).
extern "C" __global__ void gpuc_scan_prefixes(T* totals, i64 lines, i64 tiles) {
  for (i64 line = blockIdx.x; line < lines; line += gridDim.x) {
    T* t = totals + line * tiles;
    const i64 per = (tiles + THREADS - 1) / THREADS;
    const i64 begin = min((i64)threadIdx.x * per, tiles), end = min(begin + per, tiles);
    T sum = Identity();
    for (i64 i = begin; i < end; ++i) sum = Combine(sum, t[i]);
    T total;
    T running = BlockInclusiveScan(sum, &total);
    // Exclusive: what the threads before this one hold.
    T before = __shfl_up_sync(FULL, running, 1);
    __shared__ T last_of_warp[THREADS / 32];
    if ((threadIdx.x & 31) == 31) last_of_warp[threadIdx.x >> 5] = running;
    __syncthreads();
    if ((threadIdx.x & 31) == 0) {
      before = threadIdx.x == 0 ? Identity() : last_of_warp[(threadIdx.x >> 5) - 1];
    }
    __syncthreads();
    for (i64 i = begin; i < end; ++i) {
      const T value = t[i];
      t[i] = before;
      before = Combine(before, value);
    }
  }
}

// Block b: tile b % tiles of line b / tiles scanned on top of its prefix (null: one tile).
extern "C" __global__ void gpuc_scan_tiles(const In* x, T* out, const T* prefixes, i64 lines,
                                           i64 extent, i64 tiles) {
  for (i64 b = blockIdx.x; b < lines * tiles; b += gridDim.x) {
    const i64 line = b / tiles, tile = b - line * tiles;
    const i64 first = tile * TILE + (i64)threadIdx.x * ITEMS;
    const In* row = x + line * extent;
    T* row_out = out + line * extent;
    T local[ITEMS];
    T v = Identity();
    for (int j = 0; j < ITEMS; ++j) {
      if (first + j < extent) v = Combine(v, (T)row[first + j]);
      local[j] = v;
    }
    T total;
    const T inclusive = BlockInclusiveScan(v, &total);
    // What this thread's items sit on: the tile's prefix and the threads before it.
    T before = __shfl_up_sync(FULL, inclusive, 1);
    __shared__ T last_of_warp[THREADS / 32];
    if ((threadIdx.x & 31) == 31) last_of_warp[threadIdx.x >> 5] = inclusive;
    __syncthreads();
    if ((threadIdx.x & 31) == 0) {
      before = threadIdx.x == 0 ? Identity() : last_of_warp[(threadIdx.x >> 5) - 1];
    }
    __syncthreads();
    const bool has_prefix = prefixes != 0 && tile > 0;
    const T base = has_prefix ? Combine(prefixes[b], before) : before;
    const bool has_base = has_prefix || threadIdx.x > 0;
    for (int j = 0; j < ITEMS; ++j) {
      if (first + j < extent) row_out[first + j] = has_base ? Combine(base, local[j]) : local[j];
    }
  }
}
)cuda";

// The dtypes the scan kernels read or write, under CUDA's names (bool as a byte of 0 or 1).
bool HasCudaType(ir::DType dtype) {
  return dtype == ir::DType::kBool || ir::IsInteger(dtype) || dtype == ir::DType::kFloat32 ||
         dtype == ir::DType::kFloat64;
}

// The threshold below which a contiguous line is walked by one thread: shorter lines would
// leave most of a tile's block idle.
constexpr int64_t kShortLine = 256;
constexpr int64_t kTile = 256 * 8;

}  // namespace

std::string GpuScanRefusal(const ir::Node& scan) {
  const ir::DType in = scan.operand(0).dtype(), out = scan.dtype();
  const bool result_ok = out == ir::DType::kInt32 || out == ir::DType::kInt64 ||
                         out == ir::DType::kUInt32 || out == ir::DType::kUInt64 ||
                         out == ir::DType::kFloat32 || out == ir::DType::kFloat64;
  const bool in_ok = HasCudaType(in) && !(ir::IsFloat(in) && !ir::IsFloat(out)) &&
                     !(in == ir::DType::kFloat64 && out == ir::DType::kFloat32);
  if (result_ok && in_ok) return "";
  return absl::StrCat(ir::OpName(scan.op()), " of ", ir::DTypeName(in), " into ",
                      ir::DTypeName(out), ": no GPU scan kernel for these dtypes");
}

std::string GpuScanKey(const ir::Node& scan) {
  return absl::StrCat("gpuc-scan-v1 ", ir::OpName(scan.op()), " ",
                      ir::DTypeName(scan.operand(0).dtype()), " ", ir::DTypeName(scan.dtype()));
}

std::string GpuScanSource(const ir::Node& scan) {
  const ir::DType out = scan.dtype();
  const bool integer = !ir::IsFloat(out);
  return absl::StrCat("// ", GpuScanKey(scan), "\n", "typedef ",
                      codegen::UserCType(scan.operand(0).dtype()), " In;\n", "typedef ",
                      codegen::UserCType(out), " T;\n", "typedef ",
                      ir::DTypeSize(out) == 8 ? "unsigned long long" : "unsigned", " W;\n",
                      "#define GPUC_INTEGER ", integer ? 1 : 0, "\n", "#define GPUC_MUL ",
                      scan.op() == ir::OpCode::kCumProd ? 1 : 0, "\n", kKernels);
}

absl::StatusOr<std::shared_ptr<const GpuScanKernels>> LoadGpuScan(runtime::CudaDevice& device,
                                                                  const ir::Node& scan,
                                                                  const std::string& arch) {
  absl::StatusOr<std::unique_ptr<runtime::CudaModule>> module =
      LoadSourceModule(device, GpuScanSource(scan), "gpuc_scan.cu", GpuScanKey(scan), arch);
  if (!module.ok()) return module.status();
  auto kernels = std::make_shared<GpuScanKernels>();
  if (absl::Status s = FindKernels(**module, {{"gpuc_scan_columns", &kernels->columns},
                                              {"gpuc_scan_totals", &kernels->totals},
                                              {"gpuc_scan_prefixes", &kernels->prefixes},
                                              {"gpuc_scan_tiles", &kernels->tiles}});
      !s.ok()) {
    return s;
  }
  kernels->module = *std::move(module);
  return kernels;
}

absl::StatusOr<std::vector<runtime::RecordedLaunch>> GpuScanLaunches(
    runtime::CudaDevice& device, runtime::CudaStream& stream, const GpuScanKernels& kernels,
    const ir::Node& scan, const DeviceTensor& input, const DeviceTensor& out,
    std::vector<std::shared_ptr<DeviceStorage>>& keep) {
  const int axis = static_cast<int>(*scan.attrs().Get<int64_t>("axis"));
  const auto [extent, inner, outer] = ir::LinesAlong(scan.shape(), axis);
  std::vector<runtime::RecordedLaunch> launches;
  if (extent * inner * outer == 0) return launches;
  const int64_t sms = std::max(1, device.properties().multiprocessors);
  auto word = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto capped = [&](int64_t blocks) {
    return runtime::LaunchDims{static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, sms * 64))};
  };
  if (inner > 1 || extent <= kShortLine) {
    launches.push_back({&kernels.columns,
                        capped((outer * inner + 255) / 256),
                        {256},
                        {input.address, out.address, word(outer), word(extent), word(inner)}});
    return launches;
  }
  const int64_t lines = outer, tiles = (extent + kTile - 1) / kTile;
  uint64_t prefixes = 0;
  if (tiles > 1) {
    const size_t bytes = static_cast<size_t>(lines * tiles * ir::DTypeSize(scan.dtype()));
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s =
        DeviceStorage::Allocate(device, stream, bytes);
    if (!s.ok()) return s.status();
    keep.push_back(*s);
    prefixes = (*s)->address();
    launches.push_back({&kernels.totals,
                        capped(lines * tiles),
                        {256},
                        {input.address, prefixes, word(lines), word(extent), word(tiles)}});
    launches.push_back(
        {&kernels.prefixes, capped(lines), {256}, {prefixes, word(lines), word(tiles)}});
  }
  launches.push_back(
      {&kernels.tiles,
       capped(lines * tiles),
       {256},
       {input.address, out.address, prefixes, word(lines), word(extent), word(tiles)}});
  return launches;
}

}  // namespace gpuc::detail
