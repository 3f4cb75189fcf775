//===- bench_util.cc - What bench_gpu's workloads share -------------------===//
#include "bench/gpu/bench_util.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gpuc/gpuc.h"
#include "ir/parser.h"
#include "lib/api/array_impl.h"
#include "passes/pass_manager.h"

namespace gpuc::bench {

void Die(const absl::Status& s) {
  std::fprintf(stderr, "bench_gpu: %s\n", std::string(s.message()).c_str());
  std::exit(1);
}

void Must(const absl::Status& s) {
  if (!s.ok()) Die(s);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string Substitute(std::string text,
                       const std::vector<std::pair<std::string, int64_t>>& values) {
  for (const auto& [key, value] : values) {
    text = absl::StrReplaceAll(text, {{key, absl::StrCat(value)}});
  }
  return text;
}

ir::Graph Optimized(const std::string& text) {
  ir::Graph graph = Must(ir::Parse(text));
  passes::PassManager pipeline =
      Must(passes::BuildPipeline(passes::DefaultPipeline(), passes::PassManagerOptions{}));
  Must(pipeline.Run(graph));
  return graph;
}

detail::DeviceTensor RandomInput(detail::GpuExecutor& gpu, const ir::TensorType& type,
                                 uint64_t seed, double low, double high) {
  random::Generator rng(seed);
  const bool is_complex =
      type.dtype == ir::DType::kComplex64 || type.dtype == ir::DType::kComplex128;
  std::vector<int64_t> dims = type.shape.ToVector();
  if (is_complex) dims.push_back(2);
  const DType real = type.dtype == ir::DType::kComplex64    ? float32
                     : type.dtype == ir::DType::kComplex128 ? float64
                                                            : static_cast<DType>(type.dtype);
  Array a = rng.uniform(dims, low, high, real);
  eval({a});
  detail::DeviceTensor t = Must(detail::ImplOf(a, "bench").buffer().OnDevice(gpu.device()));
  t.type = type;  // the same bytes: complex elements are (re, im) pairs
  return t;
}

Timing TimePlan(detail::GpuExecutor& gpu, const detail::GpuPlan& plan,
                const std::vector<detail::DeviceTensor>& args, int batches, int batch) {
  runtime::CudaStream& stream = *Must(gpu.stream());
  runtime::CudaEvent start = Must(runtime::CudaEvent::Create(gpu.device(), true));
  runtime::CudaEvent end = Must(runtime::CudaEvent::Create(gpu.device(), true));
  for (int i = 0; i < 3; ++i) Must(gpu.Run(plan, args).status());  // warm: pool, caches
  Must(gpu.Synchronize());
  const int64_t launches_before = gpu.stats().kernel_launches;
  Must(gpu.Run(plan, args).status());
  Timing t;
  t.kernels = static_cast<int>(gpu.stats().kernel_launches - launches_before);
  std::vector<double> per_run;
  for (int b = 0; b < batches; ++b) {
    Must(start.Record(stream));
    for (int i = 0; i < batch; ++i) Must(gpu.Run(plan, args).status());
    Must(end.Record(stream));
    Must(end.Synchronize());
    per_run.push_back(Must(runtime::CudaEvent::ElapsedMilliseconds(start, end)) / batch);
  }
  t.ms = Median(per_run);
  return t;
}

std::string Label() {
  const char* label = std::getenv("GPUC_BENCH_LABEL");
  return label ? label : "gpuc";
}

void ReportAs(const std::string& impl, const std::string& name, const std::string& metric,
              double value, const std::string& extra) {
  std::printf("{\"impl\": \"%s\", \"workload\": \"%s\", \"%s\": %.4f%s}\n", impl.c_str(),
              name.c_str(), metric.c_str(), value, extra.c_str());
  std::fflush(stdout);
}

void TimeApiCall(const std::string& name, const std::function<Array()>& run, int repeat) {
  Stream::current().synchronize();
  Clock::time_point start = Clock::now();
  run().eval();
  Stream::current().synchronize();
  const double cold = MillisecondsSince(start);
  std::vector<double> warm;
  for (int i = 0; i < repeat; ++i) {
    start = Clock::now();
    run().eval();
    Stream::current().synchronize();
    warm.push_back(MillisecondsSince(start));
  }
  Report(name, "ms", Median(warm), absl::StrCat(", \"cold_ms\": ", cold));
}

}  // namespace gpuc::bench
