//===- kernel_arguments.cc - Checking and packing a user kernel's arguments ===//
#include "lib/raw_kernels/kernel_arguments.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "ir/half.h"
#include "lib/api/recorder.h"

namespace gpuc::detail {
namespace {

using codegen::DescribeParameter;
using codegen::KernelParameter;
using codegen::KernelSignature;

/// The C++ spellings of each dtype's element.
std::vector<absl::string_view> CppNamesOf(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kBool:
      return {"bool"};
    case ir::DType::kInt8:
      return {"signed char", "char", "int8_t"};
    case ir::DType::kUInt8:
      return {"unsigned char", "char", "uint8_t"};
    case ir::DType::kInt16:
      return {"short", "int16_t"};
    case ir::DType::kUInt16:
      return {"unsigned short", "uint16_t"};
    case ir::DType::kInt32:
      return {"int", "int32_t"};
    case ir::DType::kUInt32:
      return {"unsigned int", "unsigned", "uint32_t"};
    case ir::DType::kInt64:
      return {"long", "long long", "int64_t"};
    case ir::DType::kUInt64:
      return {"unsigned long", "unsigned long long", "uint64_t"};
    case ir::DType::kFloat16:
      return {"__half", "half"};
    case ir::DType::kBFloat16:
      return {"__nv_bfloat16", "nv_bfloat16"};
    case ir::DType::kFloat32:
      return {"float"};
    case ir::DType::kFloat64:
      return {"double"};
    case ir::DType::kComplex64:
      return {"float2",         "cuFloatComplex",         "cuComplex",
              "complex<float>", "thrust::complex<float>", "cuda::std::complex<float>"};
    case ir::DType::kComplex128:
      return {"double2", "cuDoubleComplex", "complex<double>", "thrust::complex<double>",
              "cuda::std::complex<double>"};
  }
  return {};
}

constexpr ir::DType kAllDTypes[] = {
    ir::DType::kBool,    ir::DType::kInt8,      ir::DType::kUInt8,     ir::DType::kInt16,
    ir::DType::kUInt16,  ir::DType::kInt32,     ir::DType::kUInt32,    ir::DType::kInt64,
    ir::DType::kUInt64,  ir::DType::kFloat16,   ir::DType::kBFloat16,  ir::DType::kFloat32,
    ir::DType::kFloat64, ir::DType::kComplex64, ir::DType::kComplex128};

std::string Describe(const KernelArg& arg) {
  switch (arg.kind()) {
    case KernelArg::Kind::kArray:
    case KernelArg::Kind::kView: {
      if (!arg.array().valid()) return "an empty Array handle";
      std::vector<int64_t> dims(arg.array().shape().begin(), arg.array().shape().end());
      return absl::StrCat(arg.kind() == KernelArg::Kind::kView ? "gpuc::view of " : "",
                          "an Array of ", ir::DTypeNumpyName(ToIr(arg.array().dtype())), " [",
                          absl::StrJoin(dims, ", "), "]");
    }
    case KernelArg::Kind::kSigned:
      return absl::StrCat("the integer ", arg.signed_value());
    case KernelArg::Kind::kUnsigned:
      return absl::StrCat("the unsigned integer ", arg.unsigned_value());
    case KernelArg::Kind::kFloat:
      return absl::StrCat("the floating-point number ", arg.float_value());
    case KernelArg::Kind::kBool:
      return arg.unsigned_value() ? "true" : "false";
  }
  return "";
}

bool IsUnsignedCpp(const std::string& cpp) {
  return absl::StartsWith(cpp, "unsigned") || absl::StartsWith(cpp, "uint") || cpp == "size_t" ||
         cpp == "bool";
}

/// ArrayView<T, N>'s element type and rank from "gpuc::ArrayView<float const, 2>".
bool ParseArrayViewType(const std::string& cpp, std::string& element, int& rank) {
  absl::string_view text = cpp;
  if (!absl::ConsumePrefix(&text, "gpuc::ArrayView<") || !absl::ConsumeSuffix(&text, ">")) {
    return false;
  }
  size_t comma = text.rfind(',');
  if (comma == absl::string_view::npos) return false;
  std::string elem(text.substr(0, comma));
  absl::StrReplaceAll({{"const", ""}, {"volatile", ""}}, &elem);
  element = std::string(absl::StripAsciiWhitespace(elem));
  return absl::SimpleAtoi(absl::StripAsciiWhitespace(text.substr(comma + 1)), &rank);
}

int ViewBytes(int rank) { return 8 + 16 * (rank > 0 ? rank : 1); }

bool IsHalfType(const std::string& cpp) { return cpp == "__half" || cpp == "half"; }
bool IsBFloat16Type(const std::string& cpp) {
  return cpp == "__nv_bfloat16" || cpp == "nv_bfloat16";
}

/// Why `arg` cannot be parameter `p`, or empty when it can.
std::string Mismatch(const KernelParameter& p, const KernelArg& arg) {
  if (arg.kind() == KernelArg::Kind::kArray) {
    if (!arg.array().valid()) return "an empty Array handle cannot be passed";
    if (!p.MayBePointer()) {
      return p.IsAggregate() ? "a struct parameter takes gpuc::view(array), not an Array"
                             : "an Array is passed as a pointer, and this parameter is not one";
    }
    const std::string pointee = p.PointeeType();
    if (!pointee.empty() && !PointeeAccepts(pointee, ToIr(arg.array().dtype()))) {
      return absl::StrCat("the elements are ", pointee, ", not ",
                          ir::DTypeNumpyName(ToIr(arg.array().dtype())));
    }
    return "";
  }
  if (arg.kind() == KernelArg::Kind::kView) {
    if (!arg.array().valid()) return "an empty Array handle cannot be passed";
    const int rank = arg.array().ndim();
    std::string element;
    int view_rank = 0;
    if (!p.IsAggregate())
      return "gpuc::view passes a gpuc::ArrayView struct, and this parameter is not one";
    if (!p.cpp_type.empty()) {
      if (!ParseArrayViewType(p.cpp_type, element, view_rank)) {
        return "gpuc::view passes a gpuc::ArrayView, and this parameter is another struct";
      }
      if (view_rank != rank)
        return absl::StrCat("the view has ", rank, " axes, the parameter ", view_rank);
      if (!PointeeAccepts(element, ToIr(arg.array().dtype()))) {
        return absl::StrCat("the elements are ", element, ", not ",
                            ir::DTypeNumpyName(ToIr(arg.array().dtype())));
      }
    }
    if (p.size_bytes != ViewBytes(rank)) {
      return absl::StrCat("a gpuc::ArrayView of ", rank, " axes is ", ViewBytes(rank),
                          " bytes, the parameter ", p.size_bytes);
    }
    return "";
  }
  // A number.
  if (!p.cpp_type.empty() && absl::EndsWith(p.cpp_type, "*")) {
    return "a pointer parameter takes an Array";
  }
  if (IsHalfType(p.cpp_type) || IsBFloat16Type(p.cpp_type)) return "";
  if (p.IsAggregate()) return "a struct parameter cannot take a number";
  const bool float_param = absl::StartsWith(p.ptx_type, "f");
  const bool untyped = absl::StartsWith(p.ptx_type, "b");
  if (float_param) return "";
  if (untyped) {  // a cubin's parameter: only its size is known
    if (arg.kind() == KernelArg::Kind::kFloat && arg.width() != p.size_bytes) {
      return absl::StrCat("a ", arg.width(), "-byte floating-point number for a ", p.size_bytes,
                          "-byte parameter");
    }
    if (arg.kind() == KernelArg::Kind::kFloat) return "";
  }
  // An integer parameter (NVRTC writes .u32 for int too: signedness comes from the C++ type).
  if (arg.kind() == KernelArg::Kind::kFloat) {
    return "a floating-point number for an integer parameter";
  }
  const int bits = p.size_bytes * 8;
  if (p.cpp_type == "bool") {
    const bool ok = arg.kind() == KernelArg::Kind::kBool ||
                    (arg.kind() == KernelArg::Kind::kSigned &&
                     (arg.signed_value() == 0 || arg.signed_value() == 1)) ||
                    (arg.kind() == KernelArg::Kind::kUnsigned && arg.unsigned_value() <= 1);
    return ok ? "" : "a bool parameter takes true, false, 0 or 1";
  }
  // The value must fit: unsigned types in [0, 2^bits), signed in [-2^(bits-1), 2^(bits-1));
  // without a C++ type (extern "C") either reading is allowed.
  const bool known = !p.cpp_type.empty();
  const bool is_unsigned = known && IsUnsignedCpp(p.cpp_type);
  const bool is_signed = known && !is_unsigned;
  const double low = is_unsigned ? 0.0 : -std::ldexp(1.0, bits - 1);
  const double high = is_signed ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
  const double value = arg.kind() == KernelArg::Kind::kSigned
                           ? static_cast<double>(arg.signed_value())
                           : static_cast<double>(arg.unsigned_value());
  if (value < low || value >= high) {
    // 2^64 - 1 as a double rounds to 2^64: compare unsigned 64-bit values exactly.
    if (!(bits == 64 && !is_signed && arg.kind() != KernelArg::Kind::kSigned)) {
      return absl::StrCat(Describe(arg), " does not fit ", p.cpp_type.empty() ? "its " : "",
                          p.cpp_type.empty() ? absl::StrCat(bits, " bits") : p.cpp_type);
    }
  }
  return "";
}

template <typename T>
void Put(std::vector<uint64_t>& block, T value) {
  std::memcpy(block.data(), &value, sizeof value);
}

}  // namespace

bool PointeeAccepts(const std::string& cpp, ir::DType dtype) {
  if (cpp == "void") return true;
  bool known = false;
  for (ir::DType candidate : kAllDTypes) {
    for (absl::string_view name : CppNamesOf(candidate)) {
      if (name != cpp) continue;
      known = true;
      if (candidate == dtype) return true;
    }
  }
  return !known;
}

absl::Status CheckKernelArguments(const KernelSignature& kernel, absl::Span<const KernelArg> args) {
  if (args.size() != kernel.parameters.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("RawKernel ", DescribeSignature(kernel), ": ", args.size(),
                     " arguments given, the kernel takes ", kernel.parameters.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    std::string why = Mismatch(kernel.parameters[i], args[i]);
    if (why.empty()) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "RawKernel ", DescribeSignature(kernel), ": argument ", i + 1, " is ", Describe(args[i]),
        ", but parameter ", i + 1, " is ", DescribeParameter(kernel.parameters[i]), ": ", why));
  }
  return absl::OkStatus();
}

std::vector<uint8_t> PackedArguments::bytes(size_t i) const {
  const auto* data = reinterpret_cast<const uint8_t*>(storage_[i].data());
  return std::vector<uint8_t>(data, data + sizes_[i]);
}

absl::StatusOr<PackedArguments> PackKernelArguments(const KernelSignature& kernel,
                                                    absl::Span<const KernelArg> args,
                                                    absl::Span<const DeviceArgument> arrays) {
  if (absl::Status s = CheckKernelArguments(kernel, args); !s.ok()) return s;
  PackedArguments packed;
  packed.storage_.resize(args.size());
  packed.sizes_.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelParameter& p = kernel.parameters[i];
    const KernelArg& arg = args[i];
    std::vector<uint64_t>& block = packed.storage_[i];
    block.assign((std::max(p.size_bytes, 8) + 7) / 8, 0);
    packed.sizes_[i] = static_cast<size_t>(p.size_bytes);
    switch (arg.kind()) {
      case KernelArg::Kind::kArray:
        Put(block, arrays[i].address);
        break;
      case KernelArg::Kind::kView: {
        const ir::Shape& shape = arrays[i].shape;
        const int rank = shape.rank();
        block[0] = arrays[i].address;
        std::vector<int64_t> strides = ir::ContiguousStrides(shape);
        for (int axis = 0; axis < std::max(rank, 1); ++axis) {
          const int64_t extent = rank == 0 ? 1 : shape.dim(axis);
          const int64_t stride = rank == 0 ? 0 : strides[axis];
          std::memcpy(&block[1 + axis], &extent, 8);
          std::memcpy(&block[1 + std::max(rank, 1) + axis], &stride, 8);
        }
        break;
      }
      default: {
        const double as_double = arg.kind() == KernelArg::Kind::kFloat ? arg.float_value()
                                 : arg.kind() == KernelArg::Kind::kSigned
                                     ? static_cast<double>(arg.signed_value())
                                     : static_cast<double>(arg.unsigned_value());
        const uint64_t as_bits = arg.kind() == KernelArg::Kind::kSigned
                                     ? static_cast<uint64_t>(arg.signed_value())
                                     : arg.unsigned_value();
        if (IsHalfType(p.cpp_type)) {
          Put(block, ir::DoubleToHalfBits(as_double));
        } else if (IsBFloat16Type(p.cpp_type)) {
          Put(block, ir::DoubleToBFloat16Bits(as_double));
        } else if (p.ptx_type == "f32" ||
                   (absl::StartsWith(p.ptx_type, "b") && arg.kind() == KernelArg::Kind::kFloat &&
                    p.size_bytes == 4)) {
          Put(block, static_cast<float>(as_double));
        } else if (p.ptx_type == "f64" || arg.kind() == KernelArg::Kind::kFloat) {
          Put(block, as_double);
        } else {
          // Integers: the low bytes of the two's-complement value (it was checked to fit).
          std::memcpy(block.data(), &as_bits, static_cast<size_t>(p.size_bytes));
        }
      }
    }
    packed.pointers_.push_back(block.data());
  }
  return packed;
}

}  // namespace gpuc::detail
