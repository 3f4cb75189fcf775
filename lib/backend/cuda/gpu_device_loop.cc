//===- gpu_device_loop.cc - A fori_loop's steps with no host work per step -===//
//
// A step of a fori_loop driven from the host costs 10-45 us of host time (binding, pool
// allocations, a graph replay with rewritten node parameters), where its kernels may take a
// few microseconds: JAX's fori_loop runs the whole loop on the device. Here the body's launches
// are recorded once per buffer arrangement and replayed as a CUDA graph:
//
//   - the index and step key are device scalars that a one-thread kernel advances after every
//     step, so every step's launches read the same addresses;
//   - the state ping-pongs between two sets of buffers (the first step reads the caller's
//     arrays and writes set A; then A -> B, B -> A), so a pair of steps has fixed parameters;
//   - the intermediates of every step share one arena (the steps run in stream order);
//   - a graph holds many pairs (up to kGraphLaunches launches) and is launched once per that
//     many steps; the steps left over run as a smaller graph, an odd last step directly.
//
// The trip count of a fori_loop is known on the host, so no device-side exit test is needed.
// A body the graph cannot hold (library calls, host steps) is Unimplemented here and runs a
// step at a time. Kernels whose bounds checks report errors (a take at the loop index) keep
// their error words until the loop is queued, then are read once. Scatters are recorded
// (gpu_scatter.h: a copy of the data into the next state's buffer, the index check, the atomic
// combine), their checks' error words read once after the loop.
//
//===----------------------------------------------------------------------===//
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/philox.h"
#include "lib/backend/cuda/gpu_executor_impl.h"

namespace gpuc::detail {
namespace {

// Launches per CUDA graph: enough steps that the graph launch (a few microseconds of host
// time) is paid rarely, few enough that building the graph (about a microsecond a node)
// stays far below a millisecond.
constexpr size_t kGraphLaunches = 512;

// counters[0]: the loop index; counters[1]: the step key, SplitMix64 of the step number
// (ir/philox.h; a host-driven step passes the same); counters[2]: the step number. The body
// reads words 0 and 1; this kernel moves all three on by one step.
constexpr char kAdvancePtx[] = R"(.version 6.4
.target sm_75
.address_size 64

.visible .entry gpuc_loop_advance(.param .u64 counters)
{
  .reg .b64 %p, %i, %s, %x, %t;
  ld.param.u64 %p, [counters];
  cvta.to.global.u64 %p, %p;
  ld.global.u64 %i, [%p];
  add.s64 %i, %i, 1;
  st.global.u64 [%p], %i;
  ld.global.u64 %s, [%p+16];
  add.s64 %s, %s, 1;
  st.global.u64 [%p+16], %s;
  add.u64 %x, %s, 0x9E3779B97F4A7C15U;
  shr.u64 %t, %x, 30;
  xor.b64 %x, %x, %t;
  mul.lo.u64 %x, %x, 0xBF58476D1CE4E5B9U;
  shr.u64 %t, %x, 27;
  xor.b64 %x, %x, %t;
  mul.lo.u64 %x, %x, 0x94D049BB133111EBU;
  shr.u64 %t, %x, 31;
  xor.b64 %x, %x, %t;
  st.global.u64 [%p+8], %x;
  ret;
}
)";

absl::Status LaunchDirectly(runtime::CudaStream& stream,
                            const std::vector<runtime::RecordedLaunch>& launches) {
  for (const runtime::RecordedLaunch& l : launches) {
    if (absl::Status s = runtime::LaunchNow(stream, l); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<DeviceTensor>> GpuExecutor::RunLoop(const GpuPlan& plan,
                                                               absl::Span<const DeviceTensor> args,
                                                               const exec::LoopSteps& loop) {
  const ir::Graph& graph = plan.graph;
  if (!plan.loopable) {
    return absl::UnimplementedError(
        "the body has a step a CUDA graph cannot hold (a library call, a host step, or a "
        "kernel that checks bounds), or CUDA graphs are off");
  }
  if (loop.steps < 1 || static_cast<int>(graph.results.size()) != loop.state_count) {
    return absl::UnimplementedError("not a loop body of this state");
  }
  // Every next-state value is written by a kernel of its own, so its storage can be chosen.
  absl::flat_hash_set<const ir::Node*> written;
  for (const GpuPlanStep& step : plan.steps) {
    for (const ir::NodeRef& out : step.kernel->outputs) written.insert(out.get());
  }
  absl::flat_hash_map<const ir::Node*, int> state_slot;
  for (int j = 0; j < loop.state_count; ++j) {
    const ir::Node* r = graph.results[j].get();
    if (!written.contains(r) || !state_slot.emplace(r, j).second) {
      return absl::UnimplementedError(
          "a state value is not written by a kernel of the body (returned unchanged, or twice)");
    }
  }
  absl::StatusOr<runtime::CudaStream*> stream_or = stream();
  if (!stream_or.ok()) return stream_or.status();
  runtime::CudaStream& stream = **stream_or;
  runtime::CudaDevice& dev = *impl_->device;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (!impl_->loop_module) {
      absl::StatusOr<std::unique_ptr<runtime::CudaModule>> m =
          runtime::CudaModule::LoadPtx(dev, kAdvancePtx);
      if (!m.ok()) return m.status();
      absl::StatusOr<runtime::CudaKernel> k = (*m)->GetKernel("gpuc_loop_advance");
      if (!k.ok()) return k.status();
      impl_->loop_module = *std::move(m);
      impl_->loop_advance = *std::move(k);
    }
  }
  auto allocate_storage = [&](int64_t bytes) {
    return DeviceStorage::Allocate(dev, stream, static_cast<size_t>(std::max<int64_t>(bytes, 1)));
  };
  // The counters, at the first step's values.
  absl::StatusOr<std::shared_ptr<DeviceStorage>> counters = allocate_storage(24);
  if (!counters.ok()) return counters.status();
  const uint64_t first_step = static_cast<uint64_t>(loop.first_step);
  const uint64_t initial[3] = {static_cast<uint64_t>(loop.lower), ir::SplitMix64(first_step),
                               first_step};
  if (absl::Status s = stream.CopyHostToDevice((*counters)->address(), initial, sizeof(initial));
      !s.ok()) {
    return s;
  }
  const DeviceTensor index{ir::TensorType{ir::DType::kInt64, ir::Shape()}, *counters,
                           (*counters)->address()};
  const DeviceTensor key{ir::TensorType{ir::DType::kUInt64, ir::Shape()}, *counters,
                         (*counters)->address() + 8};
  // Two sets of state buffers, and one arena for every step's intermediates.
  std::vector<DeviceTensor> sets[2];
  for (auto& set : sets) {
    for (int j = 0; j < loop.state_count; ++j) {
      const ir::TensorType& type = graph.results[j]->type();
      DeviceTensor t{type, nullptr, 0};
      absl::StatusOr<std::shared_ptr<DeviceStorage>> s = allocate_storage(t.size_in_bytes());
      if (!s.ok()) return s.status();
      t.storage = *s;
      t.address = t.storage->address();
      set.push_back(std::move(t));
    }
  }
  std::shared_ptr<DeviceStorage> arena;
  if (plan.buffers.arena_bytes > 0) {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s = allocate_storage(plan.buffers.arena_bytes);
    if (!s.ok()) return s.status();
    arena = *s;
  }
  // Scratch and partials the recorded launches use: held until the launches are queued.
  std::vector<std::shared_ptr<DeviceStorage>> keep;
  // One error word per scatter step, cleared now and read once the loop is queued: a check
  // that finds an index out of range leaves that step's combine undone.
  std::vector<const GpuPlanStep*> scatters;
  for (const GpuPlanStep& step : plan.steps) {
    if (step.scatter) scatters.push_back(&step);
  }
  // The bounds checks of recorded kernels (a take at an index-dependent position), read
  // once the loop is queued.
  std::vector<DeferredErrorCheck> deferred;
  std::shared_ptr<DeviceStorage> errors;
  if (!scatters.empty()) {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s =
        allocate_storage(static_cast<int64_t>(8 * scatters.size()));
    if (!s.ok()) return s.status();
    errors = *s;
    if (absl::Status f = impl_->Fill(stream, errors->address(), 0, 8 * scatters.size()); !f.ok()) {
      return f;
    }
  }
  const runtime::RecordedLaunch advance{&impl_->loop_advance, {1}, {1}, {(*counters)->address()}};
  // One step's launches, reading `from` as the state and writing `to`.
  auto record = [&](absl::Span<const DeviceTensor> from, const std::vector<DeviceTensor>& to,
                    std::vector<runtime::RecordedLaunch>& launches) -> absl::Status {
    std::vector<DeviceTensor> step_args(args.begin(), args.end());
    step_args[loop.index_param] = index;
    step_args[loop.key_param] = key;
    for (int j = 0; j < loop.state_count; ++j) step_args[loop.first_state + j] = from[j];
    absl::StatusOr<PlanValues<DeviceTensor>> bound = BindArguments(
        graph, absl::MakeConstSpan(step_args), [](const DeviceTensor& t) { return t.type; });
    if (!bound.ok()) return bound.status();
    PlanValues<DeviceTensor>& values = *bound;
    auto allocate = [&](const ir::Node* n) -> absl::StatusOr<DeviceTensor> {
      if (auto it = state_slot.find(n); it != state_slot.end()) return to[it->second];
      const passes::BufferAssignment* b = plan.buffers.Find(n);
      if (b && b->kind == passes::BufferAssignment::Kind::kIntermediate) {
        return DeviceTensor{n->type(), arena,
                            arena ? arena->address() + static_cast<uint64_t>(b->offset) : 0};
      }
      DeviceTensor t{n->type(), nullptr, 0};  // a result of no use here: storage of its own
      absl::StatusOr<std::shared_ptr<DeviceStorage>> s = allocate_storage(t.size_in_bytes());
      if (!s.ok()) return s.status();
      t.storage = *s;
      t.address = t.storage->address();
      keep.push_back(t.storage);
      return t;
    };
    size_t scatter_slot = 0;
    for (const GpuPlanStep& step : plan.steps) {
      if (step.scatter) {
        const ir::Node& node = *step.kernel->nodes[0];
        absl::StatusOr<DeviceTensor> out = allocate(&node);
        if (!out.ok()) return out.status();
        if (absl::Status s =
                RecordGpuScatter(dev, stream, *step.scatter, node, values.at(&node.operand(0)),
                                 values.at(&node.operand(1)), values.at(&node.operand(2)), *out,
                                 errors->address() + 8 * scatter_slot++, launches, keep);
            !s.ok()) {
          return s;
        }
        values[&node] = *std::move(out);
        continue;
      }
      if (absl::Status s =
              step.scan || step.sort
                  ? impl_->RunScanOrSort(stream, step, values, allocate, &launches, &keep)
                  : impl_->RunKernel(stream, step, values, allocate, {}, &launches, &keep,
                                     &deferred);
          !s.ok()) {
        return s;
      }
    }
    for (int j = 0; j < loop.state_count; ++j) {
      auto it = values.find(graph.results[j].get());
      if (it == values.end() || it->second.address != to[j].address) {
        return absl::UnimplementedError(
            "a state value is computed in place over another value's storage");
      }
    }
    launches.push_back(advance);
    return absl::OkStatus();
  };
  std::vector<runtime::RecordedLaunch> first, pair;
  if (absl::Status s = record(args.subspan(loop.first_state, loop.state_count), sets[0], first);
      !s.ok()) {
    return s;
  }
  if (loop.steps > 1) {
    if (absl::Status s = record(sets[0], sets[1], pair); !s.ok()) return s;
    if (absl::Status s = record(sets[1], sets[0], pair); !s.ok()) return s;
  }
  // Everything recorded: now queue. The first step reads the caller's arrays.
  if (absl::Status s = LaunchDirectly(stream, first); !s.ok()) return s;
  const int64_t pairs = (loop.steps - 1) / 2;
  const bool odd = (loop.steps - 1) % 2 != 0;
  int64_t graph_launches = 0;
  if (pairs > 0) {
    const int64_t per_graph =
        std::clamp<int64_t>(static_cast<int64_t>(kGraphLaunches / pair.size()), 1, pairs);
    auto run_graph = [&](int64_t unrolled, int64_t times) -> absl::Status {
      std::vector<runtime::RecordedLaunch> launches;
      launches.reserve(pair.size() * static_cast<size_t>(unrolled));
      for (int64_t u = 0; u < unrolled; ++u)
        launches.insert(launches.end(), pair.begin(), pair.end());
      absl::StatusOr<std::unique_ptr<runtime::KernelGraph>> g =
          runtime::KernelGraph::Create(dev, launches);
      if (!g.ok()) return g.status();
      for (int64_t t = 0; t < times; ++t) {
        if (absl::Status s = (*g)->Replay(stream, launches); !s.ok()) return s;
        ++graph_launches;
      }
      // Destroying an instantiated graph whose launches are still queued is allowed: the
      // driver keeps what they need until they complete.
      return absl::OkStatus();
    };
    if (absl::Status s = run_graph(per_graph, pairs / per_graph); !s.ok()) return s;
    if (pairs % per_graph != 0) {
      if (absl::Status s = run_graph(pairs % per_graph, 1); !s.ok()) return s;
    }
  }
  int final_set = 0;
  if (odd) {
    std::vector<runtime::RecordedLaunch> last;
    if (absl::Status s = record(sets[0], sets[1], last); !s.ok()) return s;
    if (absl::Status s = LaunchDirectly(stream, last); !s.ok()) return s;
    final_set = 1;
  }
  for (const DeferredErrorCheck& check : deferred) {
    int64_t found[codegen::kErrorSlots] = {0, 0};
    if (absl::Status s = stream.CopyDeviceToHost(found, check.words->address(), sizeof(found));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = codegen::KernelErrorStatus(*check.spec, found); !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat(s.message(), " (in a step of the loop run on the device)"));
    }
  }
  if (errors) {  // a scatter's index out of range in some step: the loop's result is void
    std::vector<uint64_t> found(scatters.size(), 0);
    if (absl::Status s = stream.CopyDeviceToHost(found.data(), errors->address(), 8 * found.size());
        !s.ok()) {
      return s;
    }
    for (size_t i = 0; i < found.size(); ++i) {
      if (found[i] == 0) continue;
      const ir::Node& node = *scatters[i]->kernel->nodes[0];
      const int axis = static_cast<int>(*node.attrs().Get<int64_t>("axis"));
      return absl::OutOfRangeError(absl::StrCat(
          "scatter", node.location().empty() ? "" : " (recorded at " + node.location() + ")",
          ": an index is out of bounds for axis ", axis, " with size ", node.shape()[axis], " of ",
          node.type().ToString(), " in a step of the loop run on the device"));
    }
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stats.scatters += static_cast<int64_t>(scatters.size()) * loop.steps;
    ++impl_->stats.device_loops;
    impl_->stats.device_loop_steps += loop.steps;
    impl_->stats.graph_replays += graph_launches;
  }
  // `keep`, the arena, the counters and the other set go back to the pool in stream order:
  // they are reused only by work queued after these launches.
  return sets[final_set];
}

}  // namespace gpuc::detail
