//===- npy.cc - NumPy .npy files <-> HostTensor ---------------------------===//
#include "ir/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gpuc::ir {
namespace {

constexpr absl::string_view kMagic = "\x93NUMPY";

/// The little-endian NumPy descriptor of a dtype ("<f4", "|b1").
absl::StatusOr<std::string> Descriptor(DType d) {
  switch (d) {
    case DType::kBool:
      return std::string("|b1");
    case DType::kInt8:
      return std::string("|i1");
    case DType::kUInt8:
      return std::string("|u1");
    case DType::kBFloat16:
      return absl::InvalidArgumentError(".npy: bfloat16 has no NumPy dtype; cast to float32");
    case DType::kComplex64:
      return std::string("<c8");
    case DType::kComplex128:
      return std::string("<c16");
    default:
      break;
  }
  char kind = IsFloat(d) ? 'f' : (KindOf(d) == DTypeKind::kSigned ? 'i' : 'u');
  return absl::StrCat("<", std::string(1, kind), DTypeSize(d));
}

absl::StatusOr<DType> DTypeFromDescriptor(absl::string_view descr) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    absl::StatusOr<std::string> ours = Descriptor(d);
    if (!ours.ok()) continue;
    // '=' (native) and '|' (not applicable) are little-endian on every machine gpuc runs on.
    absl::string_view body = absl::string_view(*ours).substr(1);
    if (descr.size() == ours->size() && descr.substr(1) == body &&
        (descr[0] == '<' || descr[0] == '|' || descr[0] == '=')) {
      return d;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(".npy: unsupported dtype descriptor '", descr,
                                                 "' (big-endian and structured dtypes are not "
                                                 "supported)"));
}

/// The value of `key` in the header dict, e.g. 'descr': '<f4' -> <f4 (quotes kept off).
absl::StatusOr<absl::string_view> HeaderValue(absl::string_view header, absl::string_view key) {
  std::string quoted = absl::StrCat("'", key, "':");
  size_t at = header.find(quoted);
  if (at == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(".npy: header has no '", key, "'"));
  }
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(header.substr(at + quoted.size()));
  if (!rest.empty() && rest[0] == '\'') {
    size_t end = rest.find('\'', 1);
    if (end == absl::string_view::npos) return absl::InvalidArgumentError(".npy: bad header");
    return rest.substr(1, end - 1);
  }
  if (!rest.empty() && rest[0] == '(') {
    size_t end = rest.find(')');
    if (end == absl::string_view::npos) return absl::InvalidArgumentError(".npy: bad header");
    return rest.substr(1, end - 1);
  }
  size_t end = rest.find_first_of(",}");
  return absl::StripAsciiWhitespace(rest.substr(0, end));
}

}  // namespace

absl::StatusOr<HostTensor> ParseNpy(absl::string_view bytes) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) {
    return absl::InvalidArgumentError(".npy: not a NumPy file (bad magic)");
  }
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return absl::InvalidArgumentError(".npy: truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i)
      header_len |= size_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
    header_start = 12;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(".npy: unsupported format version ", major));
  }
  if (bytes.size() < header_start + header_len) {
    return absl::InvalidArgumentError(".npy: truncated header");
  }
  absl::string_view header = bytes.substr(header_start, header_len);
  absl::StatusOr<absl::string_view> descr = HeaderValue(header, "descr");
  absl::StatusOr<absl::string_view> order = HeaderValue(header, "fortran_order");
  absl::StatusOr<absl::string_view> shape_text = HeaderValue(header, "shape");
  for (const auto* s : {&descr, &order, &shape_text}) {
    if (!s->ok()) return s->status();
  }
  absl::StatusOr<DType> dtype = DTypeFromDescriptor(*descr);
  if (!dtype.ok()) return dtype.status();
  // A Python tuple of integers: "()", "(3,)", "(2, 3)"; only the last part may be empty, and
  // only after a dimension ("(,)" and "(2,,3)" are not tuples).
  std::vector<int64_t> dims;
  std::vector<absl::string_view> parts = absl::StrSplit(*shape_text, ',');
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::string_view part = absl::StripAsciiWhitespace(parts[i]);
    if (part.empty() && (i + 1 == parts.size()) && (i > 0 || parts.size() == 1)) continue;
    int64_t d;
    if (!absl::SimpleAtoi(part, &d)) {
      return absl::InvalidArgumentError(absl::StrCat(".npy: bad shape (", *shape_text, ")"));
    }
    dims.push_back(d);
  }
  Shape shape(dims);
  if (absl::Status s = ValidateShape(shape); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(".npy: ", s.message()));
  }
  if (*order != "True" && *order != "False") {
    return absl::InvalidArgumentError(
        absl::StrCat(".npy: fortran_order is ", *order, ", not True or False"));
  }
  const bool fortran = *order == "True";
  // The file must hold what the header promises before anything is allocated for it: a
  // header that claims terabytes is a bad file, not an allocation failure.
  absl::string_view data = bytes.substr(header_start + header_len);
  const int64_t promised = shape.num_elements() * DTypeSize(*dtype);
  if (static_cast<int64_t>(data.size()) < promised) {
    return absl::InvalidArgumentError(
        absl::StrCat(".npy: data holds ", data.size(), " bytes, the header promises ", promised));
  }
  HostTensor tensor(TensorType{*dtype, shape});
  if (!fortran) {
    std::memcpy(tensor.data(), data.data(), tensor.size_in_bytes());
    return tensor;
  }
  // Fortran order: the first axis varies fastest. Element at row-major index i comes from the
  // column-major offset of the same multi-index.
  const int64_t size = DTypeSize(*dtype);
  std::vector<int64_t> index(shape.rank());
  for (int64_t i = 0; i < tensor.num_elements(); ++i) {
    UnflattenIndex(i, shape, absl::MakeSpan(index));
    int64_t offset = 0, stride = 1;
    for (int k = 0; k < shape.rank(); ++k) {
      offset += index[k] * stride;
      stride *= shape[k];
    }
    std::memcpy(tensor.element(i), data.data() + offset * size, size);
  }
  return tensor;
}

absl::StatusOr<std::string> SerializeNpy(const HostTensor& tensor) {
  absl::StatusOr<std::string> descr = Descriptor(tensor.dtype());
  if (!descr.ok()) return descr.status();
  const auto& dims = tensor.shape().dims();
  std::string shape = dims.size() == 1 ? absl::StrCat("(", dims[0], ",)")
                                       : absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
  std::string header =
      absl::StrCat("{'descr': '", *descr, "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad with spaces so that the data starts on a 64-byte boundary, ending in a newline.
  size_t total = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(tensor.data()), tensor.size_in_bytes());
  return out;
}

absl::StatusOr<HostTensor> LoadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  absl::StatusOr<HostTensor> tensor = ParseNpy(buffer.str());
  if (!tensor.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", tensor.status().message()));
  return tensor;
}

absl::Status SaveNpy(const std::string& path, const HostTensor& tensor) {
  absl::StatusOr<std::string> bytes = SerializeNpy(tensor);
  if (!bytes.ok()) return bytes.status();
  std::ofstream out(path, std::ios::binary);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  if (!out) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace gpuc::ir
