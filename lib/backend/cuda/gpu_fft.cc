//===- gpu_fft.cc - fft nodes as cuFFT plans ------------------------------===//
#include "lib/backend/cuda/gpu_fft.h"

#include "gpuc/fft.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuc::detail {
namespace {

std::atomic<size_t> plan_cache_capacity{16};

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

/// A batched 1-D transform of length `length` along `axis` of `in_dims` into `out_dims` (the
/// same but along `axis`); one call batches over whichever of the outer and inner extents
/// is larger, and the calls step over the other (real passes: see below).
FftPass AxisPass(ir::FftKind type, int64_t axis, const std::vector<int64_t>& in_dims,
                 const std::vector<int64_t>& out_dims, int64_t length) {
  const size_t a = static_cast<size_t>(axis);
  const int64_t inner = Product(in_dims, a + 1, in_dims.size()), outer = Product(in_dims, 0, a);
  FftPass pass;
  pass.type = type;
  pass.n[0] = length;
  pass.in_embed[0] = in_dims[a];
  pass.out_embed[0] = out_dims[a];
  pass.in_stride = pass.out_stride = inner;
  // cuFFT wants a real transform's real-side pointer aligned to its complex type: calls a
  // single real apart (over the inner extent) never are, so a real pass with an inner extent
  // batches over it and steps its calls over the outer one (PlanFft checks those offsets).
  const bool real = type != ir::FftKind::kC2C;
  if (real ? inner > 1 : inner >= outer) {
    pass.in_distance = pass.out_distance = 1;
    pass.batch = inner;
    pass.calls = outer;
    pass.in_call_stride = in_dims[a] * inner;
    pass.out_call_stride = out_dims[a] * inner;
  } else {
    pass.in_distance = in_dims[a] * inner;
    pass.out_distance = out_dims[a] * inner;
    pass.batch = outer;
    pass.calls = inner;
    pass.in_call_stride = pass.out_call_stride = 1;
  }
  return pass;
}

/// The complex side of an fft node: its result, or for c2r its operand.
ir::DType ComplexDType(const ir::Node& fft) {
  return fft.dtype() == ir::DType::kFloat32   ? ir::DType::kComplex64
         : fft.dtype() == ir::DType::kFloat64 ? ir::DType::kComplex128
                                              : fft.dtype();
}

const char* TypeName(ir::FftKind type, bool wide) {
  switch (type) {
    case ir::FftKind::kC2C:
      return wide ? "z2z" : "c2c";
    case ir::FftKind::kR2C:
      return wide ? "d2z" : "r2c";
    case ir::FftKind::kC2R:
      return wide ? "z2d" : "c2r";
  }
  return "?";
}

cufftType CufftType(ir::FftKind type, bool wide) {
  switch (type) {
    case ir::FftKind::kR2C:
      return wide ? CUFFT_D2Z : CUFFT_R2C;
    case ir::FftKind::kC2R:
      return wide ? CUFFT_Z2D : CUFFT_C2R;
    case ir::FftKind::kC2C:
      break;
  }
  return wide ? CUFFT_Z2Z : CUFFT_C2C;
}

}  // namespace

void SetFftPlanCacheCapacity(size_t plans) { plan_cache_capacity = std::max<size_t>(1, plans); }
size_t FftPlanCacheCapacity() { return plan_cache_capacity; }

absl::StatusOr<FftShape> PlanFft(const ir::Node& fft) {
  const std::vector<int64_t> in_dims = fft.operands()[0]->shape().ToVector();
  const std::vector<int64_t> out_dims = fft.type().shape.ToVector();
  const size_t rank = in_dims.size();
  absl::StatusOr<ir::FftAttributes> attrs =
      ir::ReadFftAttributes(fft.attrs(), static_cast<int>(rank));
  if (!attrs.ok()) return attrs.status();
  const std::vector<int64_t>& axes = attrs->axes;
  FftShape shape;
  shape.kind = attrs->kind;
  shape.inverse = attrs->inverse;
  // The logical lengths: the real side's for the real transforms.
  const std::vector<int64_t>& logical = shape.kind == ir::FftKind::kC2R ? out_dims : in_dims;
  double length = 1;
  for (int64_t a : axes) length *= static_cast<double>(logical[a]);
  shape.scale = ir::FftNormScale(attrs->norm, shape.inverse, length);
  if (fft.type().shape.num_elements() == 0) return shape;
  const int64_t last = axes.back();
  if (shape.kind != ir::FftKind::kC2C && logical[last] == 1) {
    // cuFFT's real transforms start at length 2; a length-1 one is a copy and a cast.
    return absl::UnimplementedError("a real transform of length 1 runs on the host");
  }
  const size_t k = axes.size();
  bool trailing = k <= 3;
  for (size_t i = 0; i < k && trailing; ++i) {
    trailing = axes[i] == static_cast<int64_t>(rank - k + i);
  }
  if (trailing && shape.kind != ir::FftKind::kC2R) {
    // One plan over every axis (cuFFT's multi-dimensional R2C is exactly rfftn).
    FftPass pass;
    pass.type = shape.kind;
    pass.rank = static_cast<int>(k);
    for (size_t i = 0; i < k; ++i) {
      pass.n[i] = pass.in_embed[i] = in_dims[rank - k + i];
      pass.out_embed[i] = out_dims[rank - k + i];
    }
    pass.in_distance = Product(in_dims, rank - k, rank);
    pass.out_distance = Product(out_dims, rank - k, rank);
    pass.batch = Product(in_dims, 0, rank - k);
    shape.passes.push_back(pass);
    return shape;
  }
  // A complex pass of each other axis, in the complex array `dims`, unless it is the identity.
  auto complex_passes = [&](const std::vector<int64_t>& dims) {
    for (int64_t a : axes) {
      if (a != last || shape.kind == ir::FftKind::kC2C) {
        if (dims[a] != 1)
          shape.passes.push_back(AxisPass(ir::FftKind::kC2C, a, dims, dims, dims[a]));
      }
    }
  };
  switch (shape.kind) {
    case ir::FftKind::kC2C:
      complex_passes(in_dims);
      break;
    case ir::FftKind::kR2C:
      shape.passes.push_back(AxisPass(ir::FftKind::kR2C, last, in_dims, out_dims, in_dims[last]));
      complex_passes(out_dims);
      break;
    case ir::FftKind::kC2R:
      complex_passes(in_dims);
      shape.passes.push_back(AxisPass(ir::FftKind::kC2R, last, in_dims, out_dims, out_dims[last]));
      shape.line_outer = Product(in_dims, 0, last);
      shape.line_inner = Product(in_dims, last + 1, rank);
      shape.line_length = in_dims[last];
      shape.clear_nyquist = out_dims[last] % 2 == 0;
      break;
  }
  for (const FftPass& p : shape.passes) {
    const int64_t real_call_stride = p.type == ir::FftKind::kR2C   ? p.in_call_stride
                                     : p.type == ir::FftKind::kC2R ? p.out_call_stride
                                                                   : 0;
    if (p.calls > 1 && real_call_stride % 2 != 0) {
      return absl::UnimplementedError(absl::StrCat(
          "a real transform along axis ", last, " of ", fft.operands()[0]->type().ToString(),
          " has lines an odd number of reals apart, which cuFFT cannot address"));
    }
  }
  return shape;
}

std::string DescribeFft(const ir::Node& fft, const FftShape& shape) {
  const bool wide = ComplexDType(fft) == ir::DType::kComplex128;
  // A real transform with complex passes names each pass's type.
  bool mixed = false;
  for (const FftPass& p : shape.passes) mixed = mixed || p.type != shape.kind;
  std::vector<std::string> passes;
  for (const FftPass& p : shape.passes) {
    passes.push_back(absl::StrCat(
        mixed ? absl::StrCat(TypeName(p.type, wide), " ") : "", "rank=", p.rank, " n=[",
        absl::StrJoin(absl::MakeSpan(p.n.data(), p.rank), ","), "] batch=", p.batch,
        p.in_stride > 1 ? absl::StrCat(" stride=", p.in_stride) : "",
        p.calls > 1 ? absl::StrCat(" x", p.calls, " calls") : ""));
  }
  return absl::StrCat("cufft ", TypeName(shape.kind, wide), shape.inverse ? " inverse" : " forward",
                      mixed ? ": " : " ", passes.empty() ? "copy" : absl::StrJoin(passes, "; "),
                      shape.scale != 1 ? absl::StrCat(", scale ", shape.scale) : "");
}

bool GpuFft::PlanKey::operator==(const PlanKey& o) const {
  const FftPass& a = pass;
  const FftPass& b = o.pass;
  return double_precision == o.double_precision && a.type == b.type && a.rank == b.rank &&
         a.n == b.n && a.in_embed == b.in_embed && a.out_embed == b.out_embed &&
         a.in_stride == b.in_stride && a.in_distance == b.in_distance &&
         a.out_stride == b.out_stride && a.out_distance == b.out_distance && a.batch == b.batch;
}

absl::StatusOr<std::unique_ptr<GpuFft>> GpuFft::Create(runtime::CudaDevice& device) {
  absl::StatusOr<const runtime::Cufft*> cufft = runtime::GetCufft();
  if (!cufft.ok()) return cufft.status();
  return std::unique_ptr<GpuFft>(new GpuFft(&device, *cufft));
}

GpuFft::~GpuFft() {
  std::lock_guard<std::mutex> lock(mutex_);
  EvictBeyond(0);
}

size_t GpuFft::cached_plans() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return plans_.size();
}

void GpuFft::EvictBeyond(size_t capacity) {
  if (plans_.size() > capacity && device_->MakeCurrent().ok()) {
    // An evicted plan may still have executions queued on some stream: let them finish
    // (evictions are rare; a cache that thrashes wants a larger capacity).
    device_->driver().cuCtxSynchronize();
    while (plans_.size() > capacity) {
      cufft_->cufftDestroy(plans_.back().handle);
      plans_.pop_back();
    }
  }
}

absl::StatusOr<GpuFft::CachedPlan*> GpuFft::GetPlan(const PlanKey& key) {
  for (auto it = plans_.begin(); it != plans_.end(); ++it) {
    if (it->key == key) {
      plans_.splice(plans_.begin(), plans_, it);
      return &plans_.front();
    }
  }
  EvictBeyond(FftPlanCacheCapacity() - 1);
  cufftHandle handle = 0;
  if (absl::Status s = runtime::CufftStatus(cufft_->cufftCreate(&handle), "cufftCreate"); !s.ok()) {
    return s;
  }
  // gpuc's pool provides the work area at each execution.
  cufft_->cufftSetAutoAllocation(handle, 0);
  const FftPass& p = key.pass;
  long long n[3] = {p.n[0], p.n[1], p.n[2]};
  long long in_embed[3] = {p.in_embed[0], p.in_embed[1], p.in_embed[2]};
  long long out_embed[3] = {p.out_embed[0], p.out_embed[1], p.out_embed[2]};
  size_t work = 0;
  cufftResult made = cufft_->cufftMakePlanMany64(
      handle, p.rank, n, in_embed, p.in_stride, p.in_distance, out_embed, p.out_stride,
      p.out_distance, CufftType(p.type, key.double_precision), p.batch, &work);
  if (absl::Status s = runtime::CufftStatus(
          made,
          absl::StrCat("cufftMakePlanMany64 (", TypeName(p.type, key.double_precision), " rank ",
                       p.rank, ", n ", absl::StrJoin(absl::MakeSpan(n, p.rank), "x"), ", batch ",
                       p.batch, ")"));
      !s.ok()) {
    cufft_->cufftDestroy(handle);
    return s;
  }
  plans_.push_front(CachedPlan{key, handle, work});
  return &plans_.front();
}

absl::Status GpuFft::Execute(runtime::CudaStream& stream, bool double_precision,
                             const FftPass& pass, uint64_t source, uint64_t destination,
                             bool inverse) {
  absl::StatusOr<CachedPlan*> plan = GetPlan(PlanKey{double_precision, pass});
  if (!plan.ok()) return plan.status();
  const cufftHandle handle = (*plan)->handle;
  // The work area goes back to the pool when this scope ends; the pool is stream-ordered,
  // so the next user of the block runs after these transforms.
  std::shared_ptr<DeviceStorage> work;
  if ((*plan)->work_bytes > 0) {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> w =
        DeviceStorage::Allocate(*device_, stream, (*plan)->work_bytes);
    if (!w.ok()) return w.status();
    work = *std::move(w);
  }
  if (absl::Status s =
          runtime::CufftStatus(cufft_->cufftSetStream(handle, stream.handle()), "cufftSetStream");
      !s.ok()) {
    return s;
  }
  if (work) {
    if (absl::Status s = runtime::CufftStatus(
            cufft_->cufftSetWorkArea(handle, reinterpret_cast<void*>(work->address())),
            "cufftSetWorkArea");
        !s.ok()) {
      return s;
    }
  }
  const int64_t complex_size = double_precision ? 16 : 8;
  const int64_t in_size = pass.type == ir::FftKind::kR2C ? complex_size / 2 : complex_size;
  const int64_t out_size = pass.type == ir::FftKind::kC2R ? complex_size / 2 : complex_size;
  const int direction = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  for (int64_t c = 0; c < pass.calls; ++c) {
    void* src = reinterpret_cast<void*>(source + c * pass.in_call_stride * in_size);
    void* dst = reinterpret_cast<void*>(destination + c * pass.out_call_stride * out_size);
    cufftResult r = CUFFT_SUCCESS;
    switch (pass.type) {
      case ir::FftKind::kC2C:
        r = double_precision
                ? cufft_->cufftExecZ2Z(handle, static_cast<cufftDoubleComplex*>(src),
                                       static_cast<cufftDoubleComplex*>(dst), direction)
                : cufft_->cufftExecC2C(handle, static_cast<cufftComplex*>(src),
                                       static_cast<cufftComplex*>(dst), direction);
        break;
      case ir::FftKind::kR2C:
        r = double_precision ? cufft_->cufftExecD2Z(handle, static_cast<cufftDoubleReal*>(src),
                                                    static_cast<cufftDoubleComplex*>(dst))
                             : cufft_->cufftExecR2C(handle, static_cast<cufftReal*>(src),
                                                    static_cast<cufftComplex*>(dst));
        break;
      case ir::FftKind::kC2R:
        r = double_precision ? cufft_->cufftExecZ2D(handle, static_cast<cufftDoubleComplex*>(src),
                                                    static_cast<cufftDoubleReal*>(dst))
                             : cufft_->cufftExecC2R(handle, static_cast<cufftComplex*>(src),
                                                    static_cast<cufftReal*>(dst));
        break;
    }
    if (absl::Status s = runtime::CufftStatus(
            r, absl::StrCat("cufftExec", TypeName(pass.type, double_precision)));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status GpuFft::ClearHermitianImaginaryParts(runtime::CudaStream& stream,
                                                  const FftShape& shape, uint64_t buffer,
                                                  int64_t complex_size) {
  const runtime::CudaDriver& driver = device_->driver();
  // The imaginary part is the second half of each element, a whole number of 32-bit words.
  const int64_t half = complex_size / 2;
  const size_t words = static_cast<size_t>(half / 4);
  const int64_t outer = shape.line_outer, inner = shape.line_inner, m = shape.line_length;
  std::vector<int64_t> frequencies = {0};
  if (shape.clear_nyquist) frequencies.push_back(m - 1);
  // Each memset is a 2-D one (one imaginary part per row of `pitch` bytes): over the outer
  // lines when they are contiguous lines, else over the smaller of the outer and inner extents.
  auto clear = [&](int64_t element, int64_t pitch_elements, int64_t rows) {
    return device_->Check(
        driver.cuMemsetD2D32Async(buffer + static_cast<uint64_t>(element * complex_size + half),
                                  static_cast<size_t>(pitch_elements * complex_size), 0, words,
                                  static_cast<size_t>(rows), stream.handle()),
        "cuMemsetD2D32Async");
  };
  for (int64_t k : frequencies) {
    if (inner == 1 || outer <= 1) {
      if (absl::Status s = inner == 1 ? clear(k, m, outer) : clear(k * inner, 1, inner); !s.ok()) {
        return s;
      }
    } else if (outer <= inner) {
      for (int64_t o = 0; o < outer; ++o) {
        if (absl::Status s = clear((o * m + k) * inner, 1, inner); !s.ok()) return s;
      }
    } else {
      for (int64_t j = 0; j < inner; ++j) {
        if (absl::Status s = clear(k * inner + j, m * inner, outer); !s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status GpuFft::Run(runtime::CudaStream& stream, const ir::Node& fft, const FftShape& shape,
                         const DeviceTensor& in, const DeviceTensor& out, GpuBlas& blas,
                         bool in_is_dead) {
  const size_t bytes = static_cast<size_t>(out.size_in_bytes());
  if (bytes == 0) return absl::OkStatus();
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  if (shape.passes.empty()) {  // a complex transform whose every axis has length 1
    if (absl::Status s = stream.CopyDeviceToDevice(out.address, in.address, bytes); !s.ok()) {
      return s;
    }
  }
  const ir::DType complex = ComplexDType(fft);
  const bool wide = complex == ir::DType::kComplex128;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shape.kind != ir::FftKind::kC2R) {
      for (size_t i = 0; i < shape.passes.size(); ++i) {
        const uint64_t source = i == 0 ? in.address : out.address;
        if (absl::Status s =
                Execute(stream, wide, shape.passes[i], source, out.address, shape.inverse);
            !s.ok()) {
          return s;
        }
      }
    } else {
      // C2R destroys its input: work in the operand itself when nothing reads it later,
      // otherwise in a copy (the first complex pass writes it, or a plain copy does).
      uint64_t work = in.address;
      std::shared_ptr<DeviceStorage> scratch;
      const size_t complex_passes = shape.passes.size() - 1;
      if (!in_is_dead) {
        absl::StatusOr<std::shared_ptr<DeviceStorage>> w =
            DeviceStorage::Allocate(*device_, stream, static_cast<size_t>(in.size_in_bytes()));
        if (!w.ok()) return w.status();
        scratch = *std::move(w);
        work = scratch->address();
        if (complex_passes == 0) {
          if (absl::Status s = stream.CopyDeviceToDevice(work, in.address,
                                                         static_cast<size_t>(in.size_in_bytes()));
              !s.ok()) {
            return s;
          }
        }
      }
      for (size_t i = 0; i < complex_passes; ++i) {
        const uint64_t source = i == 0 ? in.address : work;
        if (absl::Status s = Execute(stream, wide, shape.passes[i], source, work, true); !s.ok()) {
          return s;
        }
      }
      if (absl::Status s =
              ClearHermitianImaginaryParts(stream, shape, work, ir::DTypeSize(complex));
          !s.ok()) {
        return s;
      }
      if (absl::Status s = Execute(stream, wide, shape.passes.back(), work, out.address, true);
          !s.ok()) {
        return s;
      }
    }
  }
  if (shape.scale == 1) return absl::OkStatus();
  return blas.Scale(stream, out, shape.scale);
}

}  // namespace gpuc::detail

namespace gpuc::fft {

// The cuFFT plan cache is the CUDA back end's, so the public knob is defined beside it.
void set_plan_cache_size(size_t plans) { detail::SetFftPlanCacheCapacity(plans); }
size_t plan_cache_size() { return detail::FftPlanCacheCapacity(); }

}  // namespace gpuc::fft
