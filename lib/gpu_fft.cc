//===- gpu_fft.cc - fft nodes as cuFFT plans ------------------------------===//
#include "lib/gpu_fft.h"

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

}  // namespace

void SetFftPlanCacheCapacity(size_t plans) { plan_cache_capacity = std::max<size_t>(1, plans); }
size_t FftPlanCacheCapacity() { return plan_cache_capacity; }

absl::StatusOr<FftShape> PlanFft(const ir::Node& fft) {
  const std::vector<int64_t>& dims = fft.type().shape.dims();
  absl::StatusOr<std::vector<int64_t>> axes = fft.attrs().GetInts("axes");
  if (!axes.ok()) return axes.status();
  std::vector<int64_t> sorted = *axes;
  for (int64_t& a : sorted) a = a < 0 ? a + static_cast<int64_t>(dims.size()) : a;
  std::sort(sorted.begin(), sorted.end());
  absl::StatusOr<bool> inverse = fft.attrs().GetBool("inverse", false);
  if (!inverse.ok()) return inverse.status();
  std::string norm = "backward";
  if (fft.attrs().Has("norm")) {
    absl::StatusOr<std::string> n = fft.attrs().GetString("norm");
    if (!n.ok()) return n.status();
    norm = *n;
  }
  FftShape shape;
  shape.inverse = *inverse;
  double length = 1;
  for (int64_t a : sorted) length *= static_cast<double>(dims[a]);
  // NumPy scales the direction its norm names by 1/n, and both by 1/sqrt(n) for ortho.
  if (norm == "ortho") {
    shape.scale = 1 / std::sqrt(length);
  } else if ((norm == "forward") != shape.inverse) {
    shape.scale = 1 / length;
  }
  if (fft.type().shape.num_elements() == 0) return shape;
  const size_t rank = dims.size(), k = sorted.size();
  bool trailing = k <= 3;
  for (size_t i = 0; i < k && trailing; ++i)
    trailing = sorted[i] == static_cast<int64_t>(rank - k + i);
  if (trailing) {
    FftPass pass;
    pass.rank = static_cast<int>(k);
    for (size_t i = 0; i < k; ++i) pass.n[i] = dims[rank - k + i];
    pass.distance = Product(dims, rank - k, rank);
    pass.batch = Product(dims, 0, rank - k);
    shape.passes.push_back(pass);
    return shape;
  }
  for (int64_t a : sorted) {
    if (dims[a] == 1) continue;  // a transform of length 1 is the identity
    const int64_t inner = Product(dims, a + 1, rank), outer = Product(dims, 0, a);
    FftPass pass;
    pass.n[0] = dims[a];
    pass.stride = inner;
    // One call batches over whichever of the outer and inner extents is larger.
    if (inner >= outer) {
      pass.distance = 1;
      pass.batch = inner;
      pass.calls = outer;
      pass.call_stride = dims[a] * inner;
    } else {
      pass.distance = dims[a] * inner;
      pass.batch = outer;
      pass.calls = inner;
      pass.call_stride = 1;
    }
    shape.passes.push_back(pass);
  }
  return shape;
}

std::string DescribeFft(const ir::Node& fft, const FftShape& shape) {
  std::vector<std::string> passes;
  for (const FftPass& p : shape.passes) {
    passes.push_back(absl::StrCat(
        "rank=", p.rank, " n=[", absl::StrJoin(absl::MakeSpan(p.n.data(), p.rank), ","),
        "] batch=", p.batch, p.stride > 1 ? absl::StrCat(" stride=", p.stride) : "",
        p.calls > 1 ? absl::StrCat(" x", p.calls, " calls") : ""));
  }
  return absl::StrCat("cufft ", fft.dtype() == ir::DType::kComplex64 ? "c2c" : "z2z",
                      shape.inverse ? " inverse " : " forward ",
                      passes.empty() ? "copy" : absl::StrJoin(passes, "; "),
                      shape.scale != 1 ? absl::StrCat(", scale ", shape.scale) : "");
}

bool GpuFft::PlanKey::operator==(const PlanKey& o) const {
  return double_precision == o.double_precision && pass.rank == o.pass.rank && pass.n == o.pass.n &&
         pass.stride == o.pass.stride && pass.distance == o.pass.distance &&
         pass.batch == o.pass.batch;
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
  long long n[3] = {key.pass.n[0], key.pass.n[1], key.pass.n[2]};
  long long embed[3] = {n[0], n[1], n[2]};
  size_t work = 0;
  const FftPass& p = key.pass;
  cufftResult made = cufft_->cufftMakePlanMany64(
      handle, p.rank, n, embed, p.stride, p.distance, embed, p.stride, p.distance,
      key.double_precision ? CUFFT_Z2Z : CUFFT_C2C, p.batch, &work);
  if (absl::Status s =
          runtime::CufftStatus(made, absl::StrCat("cufftMakePlanMany64 (rank ", p.rank, ", n ",
                                                  absl::StrJoin(absl::MakeSpan(n, p.rank), "x"),
                                                  ", batch ", p.batch, ")"));
      !s.ok()) {
    cufft_->cufftDestroy(handle);
    return s;
  }
  plans_.push_front(CachedPlan{key, handle, work});
  return &plans_.front();
}

absl::Status GpuFft::Run(runtime::CudaStream& stream, const ir::Node& fft, const FftShape& shape,
                         const DeviceTensor& in, const DeviceTensor& out, GpuBlas& blas) {
  const size_t bytes = static_cast<size_t>(out.size_in_bytes());
  if (bytes == 0) return absl::OkStatus();
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  if (shape.passes.empty()) {  // every axis of length 1
    if (absl::Status s = stream.CopyDeviceToDevice(out.address, in.address, bytes); !s.ok()) {
      return s;
    }
  }
  const bool wide = fft.dtype() == ir::DType::kComplex128;
  const int64_t size = ir::DTypeSize(fft.dtype());
  const int direction = shape.inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < shape.passes.size(); ++i) {
      const FftPass& pass = shape.passes[i];
      absl::StatusOr<CachedPlan*> plan = GetPlan(PlanKey{wide, pass});
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
      if (absl::Status s = runtime::CufftStatus(cufft_->cufftSetStream(handle, stream.handle()),
                                                "cufftSetStream");
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
      const uint64_t source = i == 0 ? in.address : out.address;
      for (int64_t c = 0; c < pass.calls; ++c) {
        const uint64_t offset = static_cast<uint64_t>(c * pass.call_stride * size);
        void* src = reinterpret_cast<void*>(source + offset);
        void* dst = reinterpret_cast<void*>(out.address + offset);
        cufftResult r = wide
                            ? cufft_->cufftExecZ2Z(handle, static_cast<cufftDoubleComplex*>(src),
                                                   static_cast<cufftDoubleComplex*>(dst), direction)
                            : cufft_->cufftExecC2C(handle, static_cast<cufftComplex*>(src),
                                                   static_cast<cufftComplex*>(dst), direction);
        if (absl::Status s = runtime::CufftStatus(r, wide ? "cufftExecZ2Z" : "cufftExecC2C");
            !s.ok()) {
          return s;
        }
      }
    }
  }
  if (shape.scale == 1) return absl::OkStatus();
  return blas.Scale(stream, out, shape.scale);
}

}  // namespace gpuc::detail
