//===- gpuc/raw_kernel.h - Users' CUDA C++ kernels through NVRTC ----------===//
//
// When gpuc lacks an op, write the kernel in CUDA C++ as CuPy users do:
//
//   gpuc::RawKernel scale(R"(
//     extern "C" __global__ void scale(float* y, const float* x, float a, long long n) {
//       long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
//       if (i < n) y[i] = a * x[i];
//     })", "scale");
//   gpuc::Array y = gpuc::empty({n}, gpuc::float32);
//   scale({(n + 255) / 256}, {256}, {y, x, 2.0f, n});   // grid, block, arguments
//
// The source is compiled by NVRTC when the kernel is made (for the current device's
// architecture, sm_90 without one; -std=c++17 unless an option sets -std; user options after
// gpuc's), and the cubin is kept in gpuc's disk kernel cache: a second process compiles nothing.
// A compile error throws gpuc::Error with the kernel's name, the line and NVRTC's log.
//
// Arguments: an Array is evaluated and passed as its device pointer; gpuc::view(a) passes a
// gpuc::ArrayView<T, N> (data, shape, strides; #include <gpuc/array_view.cuh> in the kernel);
// C++ numbers are converted to the parameter's type (an integer that does not fit, or a
// floating-point value for an integer parameter, is an error). The count and every argument are
// checked against the kernel's parameters (read from its PTX, and from the C++ types of its
// mangled name when it has one) before anything runs: a mismatch is gpuc::Error, never a fault.
//
// Writes: a kernel writes into its pointer arguments' device buffers, as in CuPy. gpuc keeps
// value semantics around that: when the written array's buffer is also seen by another array,
// a view, or a pending expression recorded before the launch, the array first gets a private
// copy, so those keep their values. Copies of the handle itself (`Array same = y;`) are the
// same array, as two Python names bound to one CuPy array are, and see the write. Pointers to const
// (and ArrayView<const T, N>) are known not to be written; extern "C" kernels carry no types, so
// each of their pointer arguments counts as written.
//
// Launches go on the current stream (gpuc::Stream, StreamGuard) or the one given. Without a
// device, compiling works and launching throws gpuc::Error saying no CUDA device is present.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RAW_KERNEL_H_
#define GPUC_RAW_KERNEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "gpuc/array.h"
#include "gpuc/stream.h"

namespace gpuc {

struct Dim3 {
  Dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
  unsigned x, y, z;
};

/// One launch argument: an Array (its device pointer), a view of one, or a number.
class KernelArg {
 public:
  enum class Kind { kArray, kView, kSigned, kUnsigned, kFloat, kBool };

  KernelArg(const Array& array) : kind_(Kind::kArray), array_(array) {}  // NOLINT: implicit
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  KernelArg(T value) : width_(sizeof(T)) {  // NOLINT: implicit, so {y, x, 2.0f, n} works
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::kBool;
      unsigned_ = value;
    } else if constexpr (std::is_floating_point_v<T>) {
      kind_ = Kind::kFloat;
      float_ = static_cast<double>(value);
    } else if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::kSigned;
      signed_ = static_cast<int64_t>(value);
    } else {
      kind_ = Kind::kUnsigned;
      unsigned_ = static_cast<uint64_t>(value);
    }
  }
  /// The argument gpuc::view(array) makes.
  static KernelArg View(const Array& array) {
    KernelArg arg(array);
    arg.kind_ = Kind::kView;
    return arg;
  }

  Kind kind() const { return kind_; }
  const Array& array() const { return array_; }
  int64_t signed_value() const { return signed_; }
  uint64_t unsigned_value() const { return unsigned_; }
  double float_value() const { return float_; }
  /// sizeof the C++ number passed.
  int width() const { return width_; }

 private:
  Kind kind_;
  Array array_;
  int64_t signed_ = 0;
  uint64_t unsigned_ = 0;
  double float_ = 0;
  int width_ = 0;
};

/// Passes `array` as a gpuc::ArrayView<T, N> (N = array.ndim()).
inline KernelArg view(const Array& array) { return KernelArg::View(array); }

/// What the driver reports for a kernel on the current device (cuFuncGetAttribute).
struct KernelAttributes {
  int max_threads_per_block = 0;
  int num_registers = 0;
  int shared_size_bytes = 0;  // static shared memory
  int const_size_bytes = 0;
  int local_size_bytes = 0;
  int max_dynamic_shared_size_bytes = 0;
  int ptx_version = 0;     // e.g. 90 for PTX 9.0
  int binary_version = 0;  // e.g. 90 for sm_90
};

namespace detail {
struct RawModuleImpl;
}

class RawKernel;

/// Several kernels and device globals compiled together. Template kernels are instantiated
/// by name expression ("add<float>") and looked up by the same expression.
class RawModule {
 public:
  RawModule(const std::string& source, const std::vector<std::string>& options = {},
            const std::vector<std::string>& name_expressions = {});
  /// A .cu file (compiled like a source), a .ptx file (JIT-compiled by the driver when first
  /// launched) or a .cubin/.fatbin file (loaded as is; its kernels' parameter counts and sizes
  /// come from the driver when launched).
  static RawModule from_file(const std::string& path, const std::vector<std::string>& options = {},
                             const std::vector<std::string>& name_expressions = {});

  /// A kernel by name (extern "C" or mangled) or by one of the name expressions.
  RawKernel get_function(const std::string& name) const;
  /// Every kernel's name as the PTX spells it (empty for a cubin file).
  std::vector<std::string> kernel_names() const;
  /// The mangled name NVRTC gave a name expression.
  std::string lowered_name(const std::string& name_expression) const;
  /// The PTX NVRTC produced (empty for a cubin file).
  const std::string& ptx() const;
  /// NVRTC's warnings.
  const std::string& compile_log() const;
  /// Whether the code came from gpuc's disk cache instead of NVRTC.
  bool from_cache() const;

  /// Copies into / out of a __device__ global (bytes must match its size); on the current
  /// stream, ordered with launches there.
  void write_global(const std::string& name, const void* data, size_t bytes) const;
  void read_global(const std::string& name, void* data, size_t bytes) const;
  size_t global_size(const std::string& name) const;

  const std::shared_ptr<detail::RawModuleImpl>& impl() const { return impl_; }

 private:
  explicit RawModule(std::shared_ptr<detail::RawModuleImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::RawModuleImpl> impl_;
};

class RawKernel {
 public:
  /// Compiles `source` and picks the kernel `name` (an extern "C" name, a mangled name, or a
  /// template instantiation such as "add<float>", which is then instantiated).
  RawKernel(const std::string& source, const std::string& name,
            const std::vector<std::string>& options = {});

  /// Launches on the current stream. `shared_bytes` is the dynamic shared memory.
  void operator()(Dim3 grid, Dim3 block, const std::vector<KernelArg>& args,
                  unsigned shared_bytes = 0) const;
  void launch(Dim3 grid, Dim3 block, const std::vector<KernelArg>& args, unsigned shared_bytes,
              const Stream& stream) const;

  const std::string& name() const { return name_; }
  /// "void add<float>(float*, float const*, float, int)", or the extern "C" name with the PTX
  /// parameter types.
  std::string signature() const;
  KernelAttributes attributes() const;
  /// Allows launches with up to `bytes` of dynamic shared memory (beyond 48 KiB needs this).
  void set_max_dynamic_shared_memory(int bytes) const;

 private:
  friend class RawModule;
  RawKernel(std::shared_ptr<detail::RawModuleImpl> module, std::string name, std::string symbol);
  std::shared_ptr<detail::RawModuleImpl> module_;
  std::string name_;    // as the user named it
  std::string symbol_;  // as the PTX and the driver name it
};

namespace detail {
struct ElementwiseKernelImpl;
struct ReductionKernelImpl;
}  // namespace detail

/// CuPy's ElementwiseKernel: a CUDA C++ statement over named inputs and outputs,
///
///   gpuc::ElementwiseKernel squared_diff("T x, T y", "T z", "z = (x - y) * (x - y)", "sqdiff");
///   gpuc::Array z = squared_diff({x, y});          // x, y broadcast; z allocated
///
/// Parameters are "[dtype|placeholder] name": a NumPy dtype name ("float32") or a type
/// placeholder ("T"), resolved from the arrays passed (all arrays of one placeholder share a
/// dtype; numbers take the resolved type, or their own default when no array resolves it).
/// Placeholders are typedefs in the operation, and `i` is the flat position of the element.
/// Calling records a user_elementwise node per output, like any other op: it stays lazy and
/// fuses with gpuc's ops before and after it into one kernel on the GPU (the operation is
/// compiled by NVRTC and linked into the kernel by nvJitLink; codegen/user_function.h). The
/// operation is compiled when first called for a type signature, so a compile error throws
/// there, with the line of the operation. Evaluating one needs a GPU: the interpreter and
/// the host back end cannot run CUDA C++ and say so. `raw` parameters are not supported (use a
/// RawKernel); complex dtypes neither.
class ElementwiseKernel {
 public:
  ElementwiseKernel(const std::string& in_params, const std::string& out_params,
                    const std::string& operation, const std::string& name = "kernel",
                    const std::string& preamble = "");

  /// The one output. Pass the inputs, or the inputs followed by output arrays: their dtypes
  /// resolve the output placeholders, and each given handle is rebound to its result.
  Array operator()(const std::vector<KernelArg>& args) const;
  /// Every output, in out_params order.
  std::vector<Array> call(const std::vector<KernelArg>& args) const;

  const std::string& name() const;

 private:
  std::shared_ptr<detail::ElementwiseKernelImpl> impl_;
};

/// CuPy's ReductionKernel: map each element, reduce, post-map each result,
///
///   gpuc::ReductionKernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
///   gpuc::Array norm = l2norm({x});                  // over every axis
///   gpuc::Array rows = l2norm({x}, {1});             // over axis 1
///
/// `map_expr` is an expression of the inputs (and `i`); `reduce_expr` combines two partial
/// values `a` and `b` and is one of a + b, a * b, max(a, b), min(a, b) (gpuc's reductions, with
/// their deterministic combine); `post_map_expr` assigns the output from the reduced `a`;
/// `identity` is the starting value (a number, or ±INFINITY / CUDART_INF(_F)). Values are
/// reduced in `reduce_type` (default: the output's type). The map and the post-map are
/// user_elementwise nodes around a gpuc reduction, so the whole chain fuses into one kernel.
class ReductionKernel {
 public:
  ReductionKernel(const std::string& in_params, const std::string& out_params,
                  const std::string& map_expr, const std::string& reduce_expr,
                  const std::string& post_map_expr, const std::string& identity,
                  const std::string& name = "reduce_kernel", const std::string& reduce_type = "",
                  const std::string& preamble = "");

  /// Reduces over `axes` (every axis when empty), keeping them as extent 1 with `keepdims`.
  Array operator()(const std::vector<KernelArg>& args, const std::vector<int64_t>& axes = {},
                   bool keepdims = false) const;

 private:
  std::shared_ptr<detail::ReductionKernelImpl> impl_;
};

}  // namespace gpuc

#endif  // GPUC_RAW_KERNEL_H_
