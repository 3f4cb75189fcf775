//===- host_superlu.cc - spsolve through SuperLU ---------------------------===//
#include "lib/backend/host/host_superlu.h"

#include <dlfcn.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <mutex>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/elementwise_semantics.h"
#include "ir/linalg_semantics.h"
#include "ir/wide_value.h"
// Last: SuperLU's headers define macros such as EMPTY, NO, TRUE and ABORT.
#include <superlu/slu_ddefs.h>

namespace gpuc::detail {
namespace {

using ir::DType;

// The entry points gpuc calls; the precision-specific ones take their values as void* (the
// four precisions share one shape of call).
struct Superlu {
  using CreateCompRow = void (*)(SuperMatrix*, int, int, int, void*, int*, int*, Stype_t, Dtype_t,
                                 Mtype_t);
  using CreateDense = void (*)(SuperMatrix*, int, int, void*, int, Stype_t, Dtype_t, Mtype_t);
  using Gssv = void (*)(superlu_options_t*, SuperMatrix*, int*, int*, SuperMatrix*, SuperMatrix*,
                        SuperMatrix*, SuperLUStat_t*, int*);
  void (*set_default_options)(superlu_options_t*) = nullptr;
  void (*StatInit)(SuperLUStat_t*) = nullptr;
  void (*StatFree)(SuperLUStat_t*) = nullptr;
  void (*Destroy_SuperMatrix_Store)(SuperMatrix*) = nullptr;
  void (*Destroy_SuperNode_Matrix)(SuperMatrix*) = nullptr;
  void (*Destroy_CompCol_Matrix)(SuperMatrix*) = nullptr;
  CreateCompRow create_comp_row[4] = {};  // s, d, c, z
  CreateDense create_dense[4] = {};
  Gssv gssv[4] = {};
  std::string soname;
};

absl::StatusOr<Superlu> LoadSuperlu() {
  void* library = nullptr;
  std::string tried;
  Superlu table;
  for (const char* soname : {"libsuperlu.so.7", "libsuperlu.so.6", "libsuperlu.so.5"}) {
    library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) {
      table.soname = soname;
      break;
    }
    absl::StrAppend(&tried, tried.empty() ? "" : "; ", dlerror());
  }
  if (library == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("SuperLU is not installed (spsolve needs libsuperlu5 or later): ", tried));
  }
  auto find = [&](const char* name, auto& slot) -> absl::Status {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(library, name));
    if (slot == nullptr) {
      return absl::UnavailableError(absl::StrCat(table.soname, " lacks ", name));
    }
    return absl::OkStatus();
  };
  for (absl::Status s : {find("set_default_options", table.set_default_options),
                         find("StatInit", table.StatInit), find("StatFree", table.StatFree),
                         find("Destroy_SuperMatrix_Store", table.Destroy_SuperMatrix_Store),
                         find("Destroy_SuperNode_Matrix", table.Destroy_SuperNode_Matrix),
                         find("Destroy_CompCol_Matrix", table.Destroy_CompCol_Matrix)}) {
    if (!s.ok()) return s;
  }
  const char precisions[] = {'s', 'd', 'c', 'z'};
  for (int p = 0; p < 4; ++p) {
    for (absl::Status s :
         {find(absl::StrCat(std::string(1, precisions[p]), "Create_CompRow_Matrix").c_str(),
               table.create_comp_row[p]),
          find(absl::StrCat(std::string(1, precisions[p]), "Create_Dense_Matrix").c_str(),
               table.create_dense[p]),
          find(absl::StrCat(std::string(1, precisions[p]), "gssv").c_str(), table.gssv[p])}) {
      if (!s.ok()) return s;
    }
  }
  return table;
}

absl::StatusOr<const Superlu*> GetSuperlu() {
  static const auto* loaded = new absl::StatusOr<Superlu>(LoadSuperlu());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

// The precision's index in Superlu's tables and its SuperLU type code.
std::pair<int, Dtype_t> PrecisionOf(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return {0, SLU_S};
    case DType::kFloat64:
      return {1, SLU_D};
    case DType::kComplex64:
      return {2, SLU_C};
    default:
      return {3, SLU_Z};
  }
}

int64_t IndexAt(const ir::HostTensor& t, int64_t i) {
  return ir::LoadElement(t.dtype(), t.element(i)).i;
}

}  // namespace

std::string DescribeSuperlu() {
  absl::StatusOr<const Superlu*> superlu = GetSuperlu();
  if (!superlu.ok()) return std::string(superlu.status().message());
  return absl::StrCat("SuperLU (", (*superlu)->soname, ")");
}

absl::StatusOr<ir::HostTensor> HostSpsolve(const ir::Node& node,
                                           absl::Span<const ir::HostTensor* const> operands) {
  const ir::HostTensor& values = *operands[0];
  const ir::HostTensor& columns = *operands[1];
  const ir::HostTensor& offsets = *operands[2];
  const ir::HostTensor& b = *operands[3];
  const DType dtype = node.dtype();
  const int64_t n = node.shape()[0], nnz = values.num_elements();
  const int64_t k = b.shape().rank() == 2 ? b.shape()[1] : 1;
  const int64_t element = ir::DTypeSize(dtype);
  if (n >= (int64_t{1} << 31) || nnz >= (int64_t{1} << 31) || n * k >= (int64_t{1} << 31)) {
    return ir::SpsolveError(node, "is too large for SuperLU's 32-bit indices");
  }
  // The structure, checked, with each row's entries in column order and repeated ones summed
  // (in the order they appear).
  std::vector<int> row_start(static_cast<size_t>(n + 1), 0), column;
  std::vector<char> value;
  column.reserve(static_cast<size_t>(nnz));
  value.reserve(static_cast<size_t>(nnz * element));
  std::vector<int64_t> order;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t begin = IndexAt(offsets, r), end = IndexAt(offsets, r + 1);
    if ((r == 0 && begin != 0) || end < begin || end > nnz) {
      return ir::SpsolveError(node, absl::StrCat("has row offsets out of order at row ", r));
    }
    order.resize(static_cast<size_t>(end - begin));
    std::iota(order.begin(), order.end(), begin);
    for (int64_t p : order) {
      const int64_t c = IndexAt(columns, p);
      if (c < 0 || c >= n) {
        return ir::SpsolveError(node, absl::StrCat("has column index ", c, " at position ", p));
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
      return IndexAt(columns, x) < IndexAt(columns, y);
    });
    for (size_t i = 0; i < order.size(); ++i) {
      const int c = static_cast<int>(IndexAt(columns, order[i]));
      const std::byte* v = values.element(order[i]);
      if (i > 0 && column.back() == c) {  // a repeated entry: added to the previous one
        std::byte* into = reinterpret_cast<std::byte*>(value.data() + value.size() - element);
        const ir::WideValue sum = ir::EvalElementwise(
            ir::OpCode::kAdd, dtype, {ir::LoadElement(dtype, into), ir::LoadElement(dtype, v)});
        ir::StoreElement(dtype, into, sum);
        continue;
      }
      column.push_back(c);
      value.insert(value.end(), reinterpret_cast<const char*>(v),
                   reinterpret_cast<const char*>(v) + element);
    }
    row_start[static_cast<size_t>(r + 1)] = static_cast<int>(column.size());
  }
  if (n > 0 && IndexAt(offsets, n) != nnz) {
    return ir::SpsolveError(node, "has row offsets that do not end at nnz");
  }
  ir::HostTensor out(node.type());
  if (n == 0 || k == 0) return out;
  absl::StatusOr<const Superlu*> superlu = GetSuperlu();
  if (!superlu.ok()) return superlu.status();
  const Superlu& slu = **superlu;
  // The right-hand sides column-major (SuperLU's dense layout), solved in place.
  std::vector<char> x(static_cast<size_t>(n * k * element));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(x.data() + (j * n + i) * element, b.element(i * k + j),
                  static_cast<size_t>(element));
    }
  }
  const auto [p, type] = PrecisionOf(dtype);
  // SuperLU is not documented as reentrant: one solve at a time.
  static std::mutex* mutex = new std::mutex;
  std::lock_guard<std::mutex> lock(*mutex);
  SuperMatrix a, rhs, l, u;
  // A in CSR (SuperLU's SLU_NR), as SciPy passes it: ?gssv factors the transpose's CSC and
  // solves transposed.
  slu.create_comp_row[p](&a, static_cast<int>(n), static_cast<int>(n),
                         static_cast<int>(column.size()), value.data(), column.data(),
                         row_start.data(), SLU_NR, type, SLU_GE);
  slu.create_dense[p](&rhs, static_cast<int>(n), static_cast<int>(k), x.data(), static_cast<int>(n),
                      SLU_DN, type, SLU_GE);
  superlu_options_t options;
  slu.set_default_options(&options);
  options.ColPerm = COLAMD;
  options.PrintStat = NO;
  std::vector<int> perm_c(static_cast<size_t>(n)), perm_r(static_cast<size_t>(n));
  SuperLUStat_t stat;
  slu.StatInit(&stat);
  int info = 0;
  slu.gssv[p](&options, &a, perm_c.data(), perm_r.data(), &l, &u, &rhs, &stat, &info);
  slu.Destroy_SuperMatrix_Store(&a);
  slu.Destroy_SuperMatrix_Store(&rhs);
  if (info >= 0 && info <= n) {
    slu.Destroy_SuperNode_Matrix(&l);
    slu.Destroy_CompCol_Matrix(&u);
  }
  slu.StatFree(&stat);
  if (info > n) return ir::SpsolveError(node, "ran SuperLU out of memory");
  if (info > 0) return ir::SpsolveError(node, "is singular");
  if (info < 0) return absl::InternalError(absl::StrCat("spsolve: ?gssv info ", info));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(out.element(i * k + j), x.data() + (j * n + i) * element,
                  static_cast<size_t>(element));
    }
  }
  return out;
}

}  // namespace gpuc::detail
