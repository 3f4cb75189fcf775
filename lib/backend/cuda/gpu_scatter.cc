//===- gpu_scatter.cc - scatter (np.ufunc.at, bincount) as CUDA kernels ---===//
#include "lib/backend/cuda/gpu_scatter.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "codegen/user_function.h"
#include "ir/interpreter_kernels.h"
#include "lib/backend/cuda/gpu_source_module.h"
#include "runtime/cuda_driver.h"

namespace gpuc::detail {
namespace {

// The kernels, after a prelude that defines the instantiation:
//   T      the element type (a same-size unsigned type for dtypes only "set" handles),
//   S      the unsigned type of T's size (the compare-and-swap word of 1- and 2-byte types),
//   W      the unsigned type integer arithmetic wraps in (32 bits for <= 4-byte integers),
//   I      the index type, GPUC_UNSIGNED_INDEX whether it is unsigned,
//   GPUC_KIND: 0 integer, 1 float/double, 2 complex (T holds re and im), 3 bytes (set only),
//   GPUC_COMBINER: 0 set, 1 add, 2 sub, 3 mul, 4 div, 5 minimum, 6 maximum,
//   GPUC_NATIVE_ADD / GPUC_NATIVE_MINMAX: the hardware has that atomic for T (then A is the
//   type it takes).
constexpr char kKernels[] = R"cuda(
typedef long long i64;
typedef unsigned long long u64;

template <typename To, typename From>
__device__ __forceinline__ To BitCast(From from) {
  union {
    From from;
    To to;
  } both;
  both.from = from;
  return both.to;
}

#if GPUC_KIND == 1
__device__ __forceinline__ bool IsNan(T v) { return v != v; }
__device__ __forceinline__ bool SignBit(T v) { return (BitCast<S>(v) >> (sizeof(S) * 8 - 1)) != 0; }
#endif

// One application of the combiner, in T (ir/elementwise_semantics.cc's rules: integers
// wrap, minimum/maximum propagate NaN and order -0 below +0).
__device__ __forceinline__ T Apply(T a, T b) {
#if GPUC_KIND == 0
#if GPUC_COMBINER == 1
  return (T)((W)a + (W)b);
#elif GPUC_COMBINER == 2
  return (T)((W)a - (W)b);
#elif GPUC_COMBINER == 3
  return (T)((W)a * (W)b);
#elif GPUC_COMBINER == 5
  return a <= b ? a : b;
#elif GPUC_COMBINER == 6
  return a >= b ? a : b;
#endif
#elif GPUC_KIND == 1
#if GPUC_COMBINER == 1
  return a + b;
#elif GPUC_COMBINER == 2
  return a - b;
#elif GPUC_COMBINER == 3
  return a * b;
#elif GPUC_COMBINER == 4
  return a / b;
#elif GPUC_COMBINER == 5
  if (IsNan(a)) return a;
  if (IsNan(b)) return b;
  if (a == b) return SignBit(a) ? a : b;
  return a < b ? a : b;
#elif GPUC_COMBINER == 6
  if (IsNan(a)) return a;
  if (IsNan(b)) return b;
  if (a == b) return SignBit(a) ? b : a;
  return a > b ? a : b;
#endif
#endif
  return b;
}

// *target = Apply(*target, v), atomically.
__device__ __forceinline__ void Combine(T* target, T v) {
#if GPUC_KIND == 2
  // Complex add and subtract: each part on its own (the parts never interact).
#if GPUC_COMBINER == 1
  atomicAdd(&target->re, v.re);
  atomicAdd(&target->im, v.im);
#else
  atomicAdd(&target->re, -v.re);
  atomicAdd(&target->im, -v.im);
#endif
#elif defined(GPUC_NATIVE_ADD) && GPUC_COMBINER == 1
  atomicAdd((A*)target, BitCast<A>(v));
#elif defined(GPUC_NATIVE_ADD) && GPUC_COMBINER == 2 && GPUC_KIND == 1
  atomicAdd((A*)target, -v);  // a - v is a + (-v) exactly
#elif defined(GPUC_NATIVE_ADD) && GPUC_COMBINER == 2
  atomicAdd((A*)target, (A)((W)0 - (W)v));
#elif defined(GPUC_NATIVE_MINMAX) && GPUC_COMBINER == 5
  atomicMin((A*)target, (A)v);
#elif defined(GPUC_NATIVE_MINMAX) && GPUC_COMBINER == 6
  atomicMax((A*)target, (A)v);
#elif GPUC_SIZE == 8
  u64* word = (u64*)target;
  u64 seen = *word, assumed;
  do {
    assumed = seen;
    seen = atomicCAS(word, assumed, BitCast<u64>(Apply(BitCast<T>(assumed), v)));
  } while (seen != assumed);
#elif GPUC_SIZE == 4
  unsigned* word = (unsigned*)target;
  unsigned seen = *word, assumed;
  do {
    assumed = seen;
    seen = atomicCAS(word, assumed, BitCast<unsigned>(Apply(BitCast<T>(assumed), v)));
  } while (seen != assumed);
#else
  // A 1- or 2-byte element: compare-and-swap the aligned word that holds it.
  unsigned* word = (unsigned*)((u64)target & ~(u64)3);
  const unsigned shift = (unsigned)((u64)target & 3) * 8;
  const unsigned mask = (unsigned)((1ull << (8 * GPUC_SIZE)) - 1) << shift;
  unsigned seen = *word, assumed;
  do {
    assumed = seen;
    const T old = BitCast<T>((S)((assumed & mask) >> shift));
    const unsigned bits = ((unsigned)BitCast<S>(Apply(old, v)) << shift) & mask;
    seen = atomicCAS(word, assumed, (assumed & ~mask) | bits);
  } while (seen != assumed);
#endif
}

// Checks every index; records the first one outside the axis as count - k in error[0] (an
// atomic max finds the smallest k), and for "set" the last k that writes each position.
extern "C" __global__ void gpuc_scatter_check(const I* indices, i64 count, i64 extent, i64 wrap,
                                              i64* winner, u64* error) {
  for (i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x; k < count;
       k += (i64)gridDim.x * blockDim.x) {
#if GPUC_UNSIGNED_INDEX
    const u64 raw = (u64)indices[k];
    const i64 p = raw < (u64)extent ? (i64)raw : -1;
#else
    i64 p = (i64)indices[k];
    if (p < 0 && wrap) p += extent;
    if (p >= extent) p = -1;
#endif
    if (p < 0) {
      atomicMax(error, (u64)(count - k));
      continue;
    }
    if (winner) atomicMax(winner + p, k);
  }
}

// Combines values (outer x count x inner, row-major) into out (outer x extent x inner) at
// their indices; nothing when the check found an index out of range.
extern "C" __global__ void gpuc_scatter_apply(T* out, const I* indices, const T* values,
                                              i64 outer, i64 count, i64 inner, i64 extent,
                                              const i64* winner, const u64* error) {
  if (*error != 0) return;
  const i64 total = outer * count * inner;
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (i64)gridDim.x * blockDim.x) {
    const i64 row = e / inner;
    const i64 in = e - row * inner;
    const i64 o = row / count;
    const i64 k = row - o * count;
    i64 p = (i64)indices[k];
    if (p < 0) p += extent;  // checked: only a wrapped negative index is below zero
    T* target = out + (o * extent + p) * inner + in;
#if GPUC_COMBINER == 0
    if (winner[p] == k) *target = values[e];
#else
    Combine(target, values[e]);
#endif
  }
}

#if defined(GPUC_NATIVE_ADD) && GPUC_COMBINER == 1
// An add into few positions (k-means' centroid sums, a short bincount): thousands of threads
// adding into the same few words serialize at the memory, so each block adds into its own
// copy in shared memory and then adds that copy into out, one atomic per element it touched.
#define GPUC_PRIVATE_CAPACITY (32768 / GPUC_SIZE)
extern "C" __global__ void gpuc_scatter_add_shared(T* out, const I* indices, const T* values,
                                                   i64 outer, i64 count, i64 inner, i64 extent,
                                                   const u64* error) {
  __shared__ T local[GPUC_PRIVATE_CAPACITY];
  if (*error != 0) return;
  const i64 size = outer * extent * inner;  // at most the capacity: the host checks
  for (i64 i = threadIdx.x; i < size; i += blockDim.x) local[i] = (T)0;
  __syncthreads();
  const i64 total = outer * count * inner;
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (i64)gridDim.x * blockDim.x) {
    const i64 row = e / inner;
    const i64 in = e - row * inner;
    const i64 o = row / count;
    const i64 k = row - o * count;
    i64 p = (i64)indices[k];
    if (p < 0) p += extent;
    atomicAdd((A*)&local[(o * extent + p) * inner + in], BitCast<A>(values[e]));
  }
  __syncthreads();
  for (i64 i = threadIdx.x; i < size; i += blockDim.x) {
    if (local[i] != (T)0) atomicAdd((A*)(out + i), BitCast<A>(local[i]));
  }
}
#endif

// Every winner at -1 (no value writes there yet).
extern "C" __global__ void gpuc_scatter_unclaim(i64* winner, i64 extent) {
  for (i64 p = (i64)blockIdx.x * blockDim.x + threadIdx.x; p < extent;
       p += (i64)gridDim.x * blockDim.x) {
    winner[p] = -1;
  }
}

// dst = src, `bytes` of them: the scatter's copy of its data inside a recorded device loop
// (a graph of kernel nodes only). 16 bytes at a time where both are aligned (pool blocks and
// arena offsets are).
struct __align__(16) Sixteen { u64 lo, hi; };
extern "C" __global__ void gpuc_scatter_copy(unsigned char* dst, const unsigned char* src,
                                             i64 bytes) {
  const i64 first = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  const i64 stride = (i64)gridDim.x * blockDim.x;
  const i64 wide = ((u64)dst % 16 == 0 && (u64)src % 16 == 0) ? bytes / 16 : 0;
  for (i64 i = first; i < wide; i += stride) ((Sixteen*)dst)[i] = ((const Sixteen*)src)[i];
  for (i64 i = wide * 16 + first; i < bytes; i += stride) dst[i] = src[i];
}
)cuda";

struct ElementCode {
  const char* type = nullptr;       // T
  const char* same_size = nullptr;  // S
  const char* wide = "u64";         // W
  int kind = 3;
  const char* native_add = nullptr;      // A for atomicAdd, if any
  const char* native_min_max = nullptr;  // A for atomicMin/Max, if any
};

ElementCode CodeOf(ir::DType dtype) {
  using ir::DType;
  switch (dtype) {
    case DType::kInt8:
      return {"signed char", "unsigned char", "unsigned", 0};
    case DType::kUInt8:
      return {"unsigned char", "unsigned char", "unsigned", 0};
    case DType::kInt16:
      return {"short", "unsigned short", "unsigned", 0};
    case DType::kUInt16:
      return {"unsigned short", "unsigned short", "unsigned", 0};
    case DType::kInt32:
      return {"int", "unsigned", "unsigned", 0, "unsigned", "int"};
    case DType::kUInt32:
      return {"unsigned", "unsigned", "unsigned", 0, "unsigned", "unsigned"};
    case DType::kInt64:
      return {"long long", "u64", "u64", 0, "u64", "long long"};
    case DType::kUInt64:
      return {"u64", "u64", "u64", 0, "u64", "u64"};
    case DType::kFloat32:
      return {"float", "unsigned", "u64", 1, "float"};
    case DType::kFloat64:
      return {"double", "u64", "u64", 1, "double"};
    case DType::kComplex64:
      return {"gpuc_c64", "u64", "u64", 2};
    case DType::kComplex128:
      return {"gpuc_c128", "u64", "u64", 2};
    case DType::kBool:
      return {"unsigned char", "unsigned char", "unsigned", 3};
    default:
      return {"unsigned short", "unsigned short", "unsigned", 3};  // f16, bf16
  }
}

int CombinerCode(const std::string& combiner) {
  if (combiner == "set") return 0;
  if (combiner == "add") return 1;
  if (combiner == "sub") return 2;
  if (combiner == "mul") return 3;
  if (combiner == "div") return 4;
  if (combiner == "minimum") return 5;
  if (combiner == "maximum") return 6;
  return -1;
}

const std::string& CombinerOf(const ir::Node& scatter) {
  static const std::string kNone;
  const std::string* c = scatter.attrs().Get<std::string>("combiner");
  return c ? *c : kNone;
}

// Whether `scatter`'s kernels include the shared-memory add (a native atomic add of T).
bool PrivatizesAdd(const ir::Node& scatter) {
  return CombinerOf(scatter) == "add" && CodeOf(scatter.dtype()).native_add != nullptr;
}

// Bytes of shared memory the privatized add has for a copy of out.
constexpr int64_t kPrivateBytes = 32768;

}  // namespace

std::string GpuScatterRefusal(const ir::Node& scatter, bool deterministic) {
  const ir::DType data = scatter.dtype();
  const ir::DType values = scatter.operand(2).dtype();
  const std::string& combiner = CombinerOf(scatter);
  const int code = CombinerCode(combiner);
  const std::string what = absl::StrCat("scatter ", combiner, " of ", ir::DTypeName(values),
                                        " into ", ir::DTypeName(data));
  if (!ir::IsInteger(scatter.operand(1).dtype())) {
    return absl::StrCat(what, ": ", ir::DTypeName(scatter.operand(1).dtype()),
                        " indices have no GPU scatter kernel");
  }
  if (values != data) return absl::StrCat(what, ": values of another dtype have no GPU kernel");
  const ElementCode element = CodeOf(data);
  const bool covered = code == 0 || (element.kind == 0 && code >= 1 && code <= 6 && code != 4) ||
                       (element.kind == 1 && code >= 1 && code <= 6) ||
                       (element.kind == 2 && (code == 1 || code == 2));
  if (!covered) return absl::StrCat(what, ": no GPU scatter kernel for this combiner and dtype");
  const bool order_dependent = (element.kind == 1 && code >= 1 && code <= 4) || element.kind == 2;
  if (deterministic && order_dependent && code != 0) {
    return absl::StrCat(what,
                        ": GPUC_DETERMINISTIC=1 keeps NumPy's order, which the GPU's "
                        "atomics do not (it runs on the host)");
  }
  return "";
}

std::string GpuScatterKey(const ir::Node& scatter) {
  return absl::StrCat("gpuc-scatter-v3 ", ir::DTypeName(scatter.dtype()), " ",
                      ir::DTypeName(scatter.operand(1).dtype()), " ", CombinerOf(scatter));
}

std::string GpuScatterSource(const ir::Node& scatter) {
  const ElementCode e = CodeOf(scatter.dtype());
  const ir::DType index = scatter.operand(1).dtype();
  const bool unsigned_index = ir::KindOf(index) == ir::DTypeKind::kUnsigned;
  std::string prelude =
      absl::StrCat("// ", GpuScatterKey(scatter), "\n", "typedef unsigned long long u64;\n",
                   "struct gpuc_c64 { float re, im; };\n",
                   "struct __align__(16) gpuc_c128 { double re, im; };\n", "typedef ", e.type,
                   " T;\n", "typedef ", e.same_size, " S;\n", "typedef ", e.wide, " W;\n",
                   "typedef ", codegen::UserCType(index), " I;\n", "#define GPUC_KIND ", e.kind,
                   "\n", "#define GPUC_SIZE ", ir::DTypeSize(scatter.dtype()), "\n",
                   "#define GPUC_COMBINER ", CombinerCode(CombinerOf(scatter)), "\n",
                   "#define GPUC_UNSIGNED_INDEX ", unsigned_index ? 1 : 0, "\n");
  // The hardware's own atomic where it has one for T and the combiner.
  const int code = CombinerCode(CombinerOf(scatter));
  if ((code == 1 || code == 2) && e.native_add) {
    absl::StrAppend(&prelude, "#define GPUC_NATIVE_ADD 1\ntypedef ", e.native_add, " A;\n");
  } else if ((code == 5 || code == 6) && e.native_min_max) {
    absl::StrAppend(&prelude, "#define GPUC_NATIVE_MINMAX 1\ntypedef ", e.native_min_max, " A;\n");
  }
  return prelude + kKernels;
}

absl::StatusOr<std::shared_ptr<const GpuScatterKernels>> LoadGpuScatter(runtime::CudaDevice& device,
                                                                        const ir::Node& scatter,
                                                                        const std::string& arch) {
  absl::StatusOr<std::unique_ptr<runtime::CudaModule>> module = LoadSourceModule(
      device, GpuScatterSource(scatter), "gpuc_scatter.cu", GpuScatterKey(scatter), arch);
  if (!module.ok()) return module.status();
  auto kernels = std::make_shared<GpuScatterKernels>();
  absl::StatusOr<runtime::CudaKernel> check = (*module)->GetKernel("gpuc_scatter_check");
  if (!check.ok()) return check.status();
  absl::StatusOr<runtime::CudaKernel> apply = (*module)->GetKernel("gpuc_scatter_apply");
  if (!apply.ok()) return apply.status();
  absl::StatusOr<runtime::CudaKernel> unclaim = (*module)->GetKernel("gpuc_scatter_unclaim");
  if (!unclaim.ok()) return unclaim.status();
  absl::StatusOr<runtime::CudaKernel> copy = (*module)->GetKernel("gpuc_scatter_copy");
  if (!copy.ok()) return copy.status();
  if (PrivatizesAdd(scatter)) {
    absl::StatusOr<runtime::CudaKernel> shared = (*module)->GetKernel("gpuc_scatter_add_shared");
    if (!shared.ok()) return shared.status();
    kernels->add_shared = *std::move(shared);
  }
  kernels->check = *std::move(check);
  kernels->apply = *std::move(apply);
  kernels->unclaim = *std::move(unclaim);
  kernels->copy = *std::move(copy);
  kernels->module = *std::move(module);
  return kernels;
}

namespace {

// The launches of `scatter` from `data` into `out` (a copy first unless they are one storage),
// with `winner` (extent words, for set) and `error` (one word) given.
std::vector<runtime::RecordedLaunch> ScatterLaunches(
    runtime::CudaDevice& device, const GpuScatterKernels& kernels, const ir::Node& scatter,
    const DeviceTensor& data, const DeviceTensor& indices, const DeviceTensor& values,
    const DeviceTensor& out, uint64_t winner, uint64_t error) {
  const int axis = static_cast<int>(*scatter.attrs().Get<int64_t>("axis"));
  const ir::Shape& shape = scatter.shape();
  const int64_t extent = shape[axis];
  int64_t inner = 1;
  for (int d = axis + 1; d < shape.rank(); ++d) inner *= shape[d];
  const int64_t count = indices.type.shape.num_elements();
  const int64_t total = values.type.shape.num_elements();
  const int64_t outer = count * inner == 0 ? 0 : total / (count * inner);
  const uint64_t wrap = scatter.attrs().GetBool("wrap", true).value_or(true) ? 1 : 0;
  const int64_t sms = std::max(1, device.properties().multiprocessors);
  auto grid = [&](int64_t n) {
    return runtime::LaunchDims{
        static_cast<unsigned>(std::clamp<int64_t>((n + 255) / 256, 1, sms * 32))};
  };
  auto word = [](int64_t v) { return static_cast<uint64_t>(v); };
  std::vector<runtime::RecordedLaunch> launches;
  const int64_t bytes = out.size_in_bytes();
  if (out.address != data.address && bytes > 0) {
    launches.push_back(
        {&kernels.copy, grid(bytes / 16 + 1), {256}, {out.address, data.address, word(bytes)}});
  }
  if (count == 0) return launches;
  if (winner != 0) {
    launches.push_back({&kernels.unclaim, grid(extent), {256}, {winner, word(extent)}});
  }
  launches.push_back({&kernels.check,
                      grid(count),
                      {256},
                      {indices.address, word(count), word(extent), wrap, winner, error}});
  if (total > 0 && kernels.add_shared && bytes <= kPrivateBytes) {
    // Few positions: a copy per block in shared memory, few enough blocks that their final
    // adds stay a small fraction of the values'.
    const runtime::LaunchDims blocks{
        static_cast<unsigned>(std::clamp<int64_t>((total + 255) / 256, 1, sms * 4))};
    launches.push_back({&*kernels.add_shared,
                        blocks,
                        {256},
                        {out.address, indices.address, values.address, word(outer), word(count),
                         word(inner), word(extent), error}});
  } else if (total > 0) {
    launches.push_back({&kernels.apply,
                        grid(total),
                        {256},
                        {out.address, indices.address, values.address, word(outer), word(count),
                         word(inner), word(extent), winner, error}});
  }
  return launches;
}

bool IsSet(const ir::Node& scatter) { return CombinerOf(scatter) == "set"; }

int64_t WinnerBytes(const ir::Node& scatter) {
  const int axis = static_cast<int>(*scatter.attrs().Get<int64_t>("axis"));
  return IsSet(scatter) ? scatter.shape()[axis] * 8 : 0;
}

}  // namespace

absl::Status RunGpuScatter(runtime::CudaDevice& device, runtime::CudaStream& stream,
                           const GpuScatterKernels& kernels, const ir::Node& scatter,
                           const DeviceTensor& indices, const DeviceTensor& values,
                           const DeviceTensor& out) {
  const int64_t count = indices.type.shape.num_elements();
  if (count == 0) return absl::OkStatus();
  // The error word and (for set) the winners, in one block.
  absl::StatusOr<std::shared_ptr<DeviceStorage>> scratch =
      DeviceStorage::Allocate(device, stream, static_cast<size_t>(8 + WinnerBytes(scatter)));
  if (!scratch.ok()) return scratch.status();
  const uint64_t error = (*scratch)->address();
  const uint64_t winner = IsSet(scatter) ? error + 8 : 0;
  if (absl::Status s = device.Check(device.driver().cuMemsetD8Async(error, 0, 8, stream.handle()),
                                    "cuMemsetD8Async");
      !s.ok()) {
    return s;
  }
  for (const runtime::RecordedLaunch& l :
       ScatterLaunches(device, kernels, scatter, out, indices, values, out, winner, error)) {
    if (absl::Status s = runtime::LaunchNow(stream, l); !s.ok()) return s;
  }
  uint64_t found = 0;
  if (absl::Status s = stream.CopyDeviceToHost(&found, error, sizeof(found)); !s.ok()) return s;
  if (found == 0) return absl::OkStatus();
  // The first index out of range, read back for the message.
  const int axis = static_cast<int>(*scatter.attrs().Get<int64_t>("axis"));
  const int64_t extent = scatter.shape()[axis];
  const int64_t k = count - static_cast<int64_t>(found);
  const ir::DType index_dtype = indices.type.dtype;
  const int64_t item = ir::DTypeSize(index_dtype);
  uint64_t raw = 0;
  if (absl::Status s =
          stream.CopyDeviceToHost(&raw, indices.address + static_cast<uint64_t>(k * item), item);
      !s.ok()) {
    return s;
  }
  int64_t index = 0;
  if (ir::KindOf(index_dtype) == ir::DTypeKind::kUnsigned) {
    index = raw > static_cast<uint64_t>(extent) ? extent : static_cast<int64_t>(raw);
  } else {  // sign-extended from the index's width
    const int shift = 64 - 8 * static_cast<int>(item);
    index = static_cast<int64_t>(raw << shift) >> shift;
  }
  return ir::interp::IndexOutOfBoundsError(scatter, scatter.type(), index, axis);
}

absl::Status RecordGpuScatter(runtime::CudaDevice& device, runtime::CudaStream& stream,
                              const GpuScatterKernels& kernels, const ir::Node& scatter,
                              const DeviceTensor& data, const DeviceTensor& indices,
                              const DeviceTensor& values, const DeviceTensor& out, uint64_t error,
                              std::vector<runtime::RecordedLaunch>& launches,
                              std::vector<std::shared_ptr<DeviceStorage>>& keep) {
  uint64_t winner = 0;
  if (IsSet(scatter)) {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s = DeviceStorage::Allocate(
        device, stream, static_cast<size_t>(std::max<int64_t>(WinnerBytes(scatter), 8)));
    if (!s.ok()) return s.status();
    keep.push_back(*s);
    winner = (*s)->address();
  }
  for (runtime::RecordedLaunch& l :
       ScatterLaunches(device, kernels, scatter, data, indices, values, out, winner, error)) {
    launches.push_back(std::move(l));
  }
  return absl::OkStatus();
}

}  // namespace gpuc::detail
