//===- gpu_kernel_launch.cc - A kernel's launches, a repeated plan's graph ===//
#include "lib/backend/cuda/gpu_executor_impl.h"

#include "absl/strings/str_cat.h"
#include "lib/backend/cuda/gpu_launch.h"

namespace gpuc::detail {

absl::Status GpuExecutor::Impl::RunKernel(
    runtime::CudaStream& stream, const GpuPlanStep& step,
    absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
    const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
    absl::Span<const int64_t> positions, std::vector<runtime::RecordedLaunch>* record,
    std::vector<std::shared_ptr<DeviceStorage>>* keep, std::vector<DeferredErrorCheck>* deferred) {
  const codegen::KernelSpec& spec = *step.spec;
  const GpuKernel& kernel = *step.compiled;
  std::vector<uint64_t> words;  // every parameter is 8 bytes
  std::vector<DeviceTensor> written;
  std::vector<std::shared_ptr<DeviceStorage>> temporaries;
  for (const ir::Node* in : spec.inputs) {
    auto it = values.find(in);
    if (it == values.end()) {
      return absl::InternalError(absl::StrCat("GPU executor: kernel ", spec.name,
                                              " reads a value no earlier step produced"));
    }
    words.push_back(it->second.address);
  }
  for (const ir::Node* n : spec.outputs) {
    auto alias = spec.in_place.find(n);
    if (alias != spec.in_place.end()) {
      DeviceTensor t = values.at(alias->second);
      t.type = n->type();
      written.push_back(std::move(t));
    } else {
      absl::StatusOr<DeviceTensor> t = allocate(n);
      if (!t.ok()) return t.status();
      written.push_back(*std::move(t));
    }
    words.push_back(written.back().address);
  }
  for (const ir::Node* n : spec.scratch) {
    const size_t bytes = static_cast<size_t>(n->shape().num_elements() * ir::DTypeSize(n->dtype()));
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s =
        DeviceStorage::Allocate(*device, stream, bytes);
    if (!s.ok()) return s.status();
    temporaries.push_back(*s);
    if (keep) keep->push_back(*s);
    words.push_back((*s)->address());
  }
  // The symbols' values: as planned, or with this run's positions for the offsets.
  if (!positions.empty() && !spec.offset_positions.empty()) {
    for (int64_t e : spec.ExtentsFor(positions)) words.push_back(static_cast<uint64_t>(e));
  } else {
    for (int64_t e : spec.extents) words.push_back(static_cast<uint64_t>(e));
  }
  std::shared_ptr<DeviceStorage> error;
  if (kernel.layout.reports_errors) {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s =
        DeviceStorage::Allocate(*device, stream, 8 * codegen::kErrorSlots);
    if (!s.ok()) return s.status();
    error = *s;
    if (absl::Status f = Fill(stream, error->address(), 0, 8 * codegen::kErrorSlots); !f.ok()) {
      return f;
    }
  }
  words.push_back(error ? error->address() : 0);
  const size_t splits_slot = words.size();
  words.push_back(1);  // splits
  words.push_back(0);  // chunk
  words.push_back(0);  // partials
  std::vector<void*> args;
  for (uint64_t& w : words) args.push_back(&w);

  const int64_t sms = std::max(1, device->properties().multiprocessors);
  const unsigned threads = codegen::kGpuBlockThreads;
  auto launch = [&](const runtime::CudaKernel& k, int64_t blocks, int64_t splits) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.kernel_launches;
    }
    const runtime::LaunchDims grid{static_cast<unsigned>(blocks), static_cast<unsigned>(splits)};
    if (record) {
      record->push_back({&k, grid, {threads}, words});
      return absl::OkStatus();
    }
    return runtime::Launch(stream, k, grid, {threads}, 0, args.data());
  };
  // Row-local kernels when the rows alone fill the device (a block per row).
  const int64_t local_blocks = kernel.rows ? RowLocalBlocks(spec.RowCount(spec.phases[0]), sms) : 0;
  const bool use_rows_kernel = local_blocks > 0;
  if (use_rows_kernel) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.row_kernel_launches;
    }
    if (absl::Status s = launch(*kernel.rows, local_blocks, 1); !s.ok()) return s;
  }
  for (size_t i = 0; i < spec.phases.size() && !use_rows_kernel; ++i) {
    const codegen::Phase& phase = spec.phases[i];
    const codegen::GpuPhaseLaunch& p = kernel.layout.phases[i];
    const int64_t rows = spec.RowCount(phase);
    if (rows == 0) continue;
    words[splits_slot] = 1;
    words[splits_slot + 1] = 0;
    words[splits_slot + 2] = 0;
    if (p.kind == codegen::GpuPhaseLaunch::Kind::kStore) {
      if (absl::Status s = launch(kernel.kernels[i], StoreBlocks(rows, p.vector, sms), 1);
          !s.ok()) {
        return s;
      }
      continue;
    }
    const int64_t count = spec.reduced_shape.num_elements() / rows;
    const ReduceLaunch shape = ChooseReduceLaunch(p, rows, count, sms);
    const int64_t splits = shape.splits;
    words[splits_slot] = static_cast<uint64_t>(splits);
    words[splits_slot + 1] = static_cast<uint64_t>(shape.chunk);
    std::shared_ptr<DeviceStorage> partials;
    if (splits > 1) {
      absl::StatusOr<std::shared_ptr<DeviceStorage>> s = DeviceStorage::Allocate(
          *device, stream, static_cast<size_t>(splits * rows * p.state_bytes));
      if (!s.ok()) return s.status();
      partials = *s;
      words[splits_slot + 2] = partials->address();
      if (keep) keep->push_back(partials);
    }
    if (absl::Status s = launch(kernel.kernels[i], shape.blocks, splits); !s.ok()) return s;
    if (splits > 1) {
      if (absl::Status s = launch(kernel.combines[i], CombineBlocks(p, rows, sms), 1); !s.ok()) {
        return s;
      }
    }
  }
  if (error && record && deferred) {  // read after the recorded launches ran
    deferred->push_back({error, &spec});
  } else if (error) {
    int64_t found[codegen::kErrorSlots] = {0, 0};
    if (absl::Status s = stream.CopyDeviceToHost(found, error->address(), sizeof(found)); !s.ok()) {
      return s;
    }
    if (absl::Status s = codegen::KernelErrorStatus(spec, found); !s.ok()) return s;
  }
  for (size_t i = 0; i < spec.outputs.size(); ++i) values[spec.outputs[i]] = std::move(written[i]);
  return absl::OkStatus();
}

absl::Status GpuExecutor::Impl::Replay(runtime::CudaStream& stream, const GpuPlan& plan,
                                       const std::vector<runtime::RecordedLaunch>& launches) {
  std::lock_guard<std::mutex> lock(plan.graph_mutex);
  bool built = false;
  if (!plan.cuda_graph || !plan.cuda_graph->Matches(launches)) {
    absl::StatusOr<std::unique_ptr<runtime::KernelGraph>> g =
        runtime::KernelGraph::Create(*device, launches);
    if (!g.ok()) return g.status();
    plan.cuda_graph = *std::move(g);
    built = true;
  }
  const int64_t updated_before = plan.cuda_graph->updated_nodes();
  if (absl::Status s = plan.cuda_graph->Replay(stream, launches); !s.ok()) return s;
  std::lock_guard<std::mutex> stats_lock(mutex);
  ++stats.graph_replays;
  stats.graph_builds += built ? 1 : 0;
  stats.graph_node_updates += plan.cuda_graph->updated_nodes() - updated_before;
  return absl::OkStatus();
}

}  // namespace gpuc::detail
