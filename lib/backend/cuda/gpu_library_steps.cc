//===- gpu_library_steps.cc - Vendor-library calls and steps on the host --===//
#include "lib/backend/cuda/gpu_executor_impl.h"

#include "absl/strings/str_cat.h"
#include "ir/positions.h"
#include "lib/backend/cuda/gpu_region_write.h"
#include "lib/backend/host/host_library_steps.h"
#include "lib/exec/target.h"

namespace gpuc::detail {

absl::Status GpuExecutor::Impl::RunLibrary(
    runtime::CudaStream& stream, const GpuPlanStep& step,
    absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
    const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
    bool first_operand_is_dead) {
  const ir::Node& node = *step.kernel->nodes[0];
  std::vector<const DeviceTensor*> operands;
  for (const ir::NodeRef& op : node.operands()) operands.push_back(&values.at(op.get()));
  absl::StatusOr<DeviceTensor> out = allocate(&node);
  if (!out.ok()) return out.status();
  // The call's parameters go into the message here, so the libraries' hot paths format none.
  if (absl::Status s =
          libraries->Run(stream, node, *step.library, operands, *out, first_operand_is_dead);
      !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(step.library->description, ": ", s.message()));
  }
  stream.NoteLaunch(step.library->description);
  values[&node] = *std::move(out);
  std::lock_guard<std::mutex> lock(mutex);
  ++stats.library_calls;
  return absl::OkStatus();
}

absl::Status GpuExecutor::Impl::WriteRegion(
    runtime::CudaStream& stream, const passes::FusedKernel& kernel,
    absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
    absl::Span<const int64_t> positions) {
  const ir::NodeRef& planned = kernel.nodes[0];
  const ir::NodeRef write = ir::PlacedAt(planned, positions);
  const DeviceTensor old = values.at(&planned->operand(0));
  const DeviceTensor value = values.at(&planned->operand(1));  // copies: the map grows below
  if (absl::Status s = CopyRegionOnDevice(*device, stream, *write, old, value); !s.ok()) return s;
  values[planned.get()] = DeviceTensor{planned->type(), old.storage, old.address};
  std::lock_guard<std::mutex> lock(mutex);
  ++stats.in_place_writes;
  stats.in_place_write_bytes +=
      planned->operand(1).shape().num_elements() * ir::DTypeSize(planned->dtype());
  return absl::OkStatus();
}

namespace {

// The kernels of `key` from `cache`, or loaded by `load(arch)` for the executor's device and
// kept there; null with `host_reason` set when `refusal` is not empty or loading fails (no
// NVRTC, say: the host's implementation still gives the answer).
template <typename Kernels, typename Load>
std::shared_ptr<const Kernels> CachedKernels(
    std::mutex& mutex, absl::flat_hash_map<std::string, std::shared_ptr<const Kernels>>& cache,
    std::string refusal, const std::string& key, const exec::Options& options,
    std::string& host_reason, const Load& load) {
  if (!refusal.empty()) {
    host_reason = std::move(refusal);
    return nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  exec::Options device_options = options;
  device_options.gpu_arch.clear();  // the kernels load on this device
  absl::StatusOr<std::shared_ptr<const Kernels>> kernels =
      load(exec::GpuArchitecture(device_options));
  if (!kernels.ok()) {
    host_reason = std::string(kernels.status().message());
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex);
  return cache.try_emplace(key, *kernels).first->second;
}

}  // namespace

std::shared_ptr<const GpuScatterKernels> GpuExecutor::Impl::ScatterKernelsFor(
    const ir::Node& scatter, const exec::Options& options, std::string& host_reason) {
  return CachedKernels(mutex, scatters, GpuScatterRefusal(scatter, options.deterministic),
                       GpuScatterKey(scatter), options, host_reason, [&](const std::string& arch) {
                         return LoadGpuScatter(*device, scatter, arch);
                       });
}

std::shared_ptr<const GpuScanKernels> GpuExecutor::Impl::ScanKernelsFor(
    const ir::Node& scan, const exec::Options& options, std::string& host_reason) {
  return CachedKernels(mutex, scans, GpuScanRefusal(scan), GpuScanKey(scan), options, host_reason,
                       [&](const std::string& arch) { return LoadGpuScan(*device, scan, arch); });
}

std::shared_ptr<const GpuSortKernels> GpuExecutor::Impl::SortKernelsFor(
    const ir::Node& sort, const exec::Options& options, std::string& host_reason) {
  return CachedKernels(mutex, sorts, GpuSortRefusal(sort), GpuSortKey(sort), options, host_reason,
                       [&](const std::string& arch) { return LoadGpuSort(*device, sort, arch); });
}

absl::Status GpuExecutor::Impl::RunScanOrSort(
    runtime::CudaStream& stream, const GpuPlanStep& step,
    absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
    const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
    std::vector<runtime::RecordedLaunch>* record,
    std::vector<std::shared_ptr<DeviceStorage>>* keep) {
  const ir::Node& node = *step.kernel->nodes[0];
  absl::StatusOr<DeviceTensor> out = allocate(&node);
  if (!out.ok()) return out.status();
  std::vector<std::shared_ptr<DeviceStorage>> scratch;
  const DeviceTensor& input = values.at(&node.operand(0));
  absl::StatusOr<std::vector<runtime::RecordedLaunch>> launches =
      step.sort ? GpuSortLaunches(*device, stream, *step.sort, node, input, *out, scratch)
                : GpuScanLaunches(*device, stream, *step.scan, node, input, *out, scratch);
  if (!launches.ok()) return launches.status();
  if (record) {
    record->insert(record->end(), launches->begin(), launches->end());
    if (keep) keep->insert(keep->end(), scratch.begin(), scratch.end());
  } else {
    // The scratch buffers go back to the stream-ordered pool after these launches.
    for (const runtime::RecordedLaunch& l : *launches) {
      if (absl::Status s = runtime::LaunchNow(stream, l); !s.ok()) return s;
    }
    stream.NoteLaunch(ir::OpName(node.op()));
  }
  values[&node] = *std::move(out);
  std::lock_guard<std::mutex> lock(mutex);
  ++(step.sort ? stats.sorts : stats.scans);
  return absl::OkStatus();
}

absl::Status GpuExecutor::Impl::RunScatter(
    runtime::CudaStream& stream, const GpuPlanStep& step,
    absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
    const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate) {
  const ir::Node& node = *step.kernel->nodes[0];
  const DeviceTensor data = values.at(&node.operand(0));
  DeviceTensor out{node.type(), data.storage, data.address};
  if (!ir::IsInPlaceWrite(node)) {  // a copy of the data, combined into
    absl::StatusOr<DeviceTensor> fresh = allocate(&node);
    if (!fresh.ok()) return fresh.status();
    out = *std::move(fresh);
    if (out.size_in_bytes() > 0) {
      if (absl::Status s = stream.CopyDeviceToDevice(out.address, data.address,
                                                     static_cast<size_t>(out.size_in_bytes()));
          !s.ok()) {
        return s;
      }
    }
  }
  if (absl::Status s = RunGpuScatter(*device, stream, *step.scatter, node,
                                     values.at(&node.operand(1)), values.at(&node.operand(2)), out);
      !s.ok()) {
    return s;
  }
  stream.NoteLaunch("gpuc_scatter_apply");
  values[&node] = std::move(out);
  std::lock_guard<std::mutex> lock(mutex);
  ++stats.scatters;
  return absl::OkStatus();
}

absl::Status GpuExecutor::Impl::RunOnHost(
    runtime::CudaStream& stream, const passes::FusedKernel& kernel,
    absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
    absl::Span<const int64_t> positions) {
  absl::flat_hash_map<const ir::Node*, ir::HostTensor> local;
  for (const ir::NodeRef& in : kernel.inputs) {
    const DeviceTensor& d = values.at(in.get());
    ir::HostTensor h = ir::HostTensor::Uninitialized(d.type);
    if (h.size_in_bytes() > 0) {
      if (absl::Status s = stream.CopyDeviceToHost(h.data(), d.address, h.size_in_bytes());
          !s.ok()) {
        return s;
      }
    }
    local[in.get()] = std::move(h);
  }
  if (absl::Status s = InterpretFusedKernel(kernel, local, positions); !s.ok()) return s;
  for (const ir::NodeRef& out : kernel.outputs) {
    const ir::HostTensor& h = local.at(out.get());
    absl::StatusOr<std::shared_ptr<DeviceStorage>> storage =
        DeviceStorage::Allocate(*device, stream, static_cast<size_t>(h.size_in_bytes()));
    if (!storage.ok()) return storage.status();
    if (h.size_in_bytes() > 0) {
      if (absl::Status s =
              stream.CopyHostToDevice((*storage)->address(), h.data(), h.size_in_bytes());
          !s.ok()) {
        return s;
      }
    }
    values[out.get()] = DeviceTensor{out->type(), *storage, (*storage)->address()};
  }
  std::lock_guard<std::mutex> lock(mutex);
  ++(codegen::IsCompilable(kernel) ? stats.host_kernels : stats.library_steps);
  return absl::OkStatus();
}

}  // namespace gpuc::detail
