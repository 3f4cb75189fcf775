//===- einsum_api.cc - numpy.einsum as sums, transposes and GEMMs ---------===//
//
// Operands are contracted left to right, two at a time. Each pair becomes one batched matmul:
// labels in both operands that the result keeps are batch axes, labels in both that it drops
// are the contracted axis, the others are each side's free axes; every transpose and reshape
// around the GEMM is a view that fuses. A label only one operand has and nothing later needs
// is summed out first (a fused reduction), as is every dropped label of a single operand.
// An ellipsis stands for the broadcast leading axes NumPy's way (right-aligned across the
// operands, extents of 1 broadcast); each of its axes gets a label of its own below 'A'. A
// label repeated within a term is that term's diagonal: the repeated axes become adjacent and
// one axis through a reshape and a strided slice, all views.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gpuc/elementwise.h"
#include "gpuc/linalg.h"
#include "gpuc/manipulation.h"
#include "gpuc/reductions.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"

namespace gpuc {
namespace {

struct Term {
  Array value;
  std::string labels;  // one letter per axis
};

bool Has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

std::string TypeText(const Array& a) { return detail::ImplOf(a, "einsum").node->type().ToString(); }

/// `term` with every axis whose label `keep` lacks summed away.
Term SumOut(Term term, const std::string& keep) {
  std::vector<int64_t> axes;
  std::string kept;
  for (size_t d = 0; d < term.labels.size(); ++d) {
    if (Has(keep, term.labels[d])) {
      kept += term.labels[d];
    } else {
      axes.push_back(static_cast<int64_t>(d));
    }
  }
  if (axes.empty()) return term;
  // einsum keeps the operand's dtype (sum would widen int32 to int64; a bool sum is any()).
  return {astype(sum(term.value, axes), term.value.dtype()), kept};
}

/// `term` with its axes in the order of `labels` (a permutation of its own).
Array Ordered(const Term& term, const std::string& labels) {
  std::vector<int64_t> perm;
  for (char c : labels) perm.push_back(static_cast<int64_t>(term.labels.find(c)));
  return transpose(term.value, perm);
}

int64_t Extent(const Term& t, char c) { return t.value.shape()[t.labels.find(c)]; }

/// a and b contracted into the labels `out` (each label of `out` is in a or b).
Term Contract(Term a, Term b, const std::string& out) {
  std::string needed = out + b.labels;
  a = SumOut(a, needed);
  b = SumOut(b, out + a.labels);
  std::string batch, contracted, free_a, free_b;
  for (char c : a.labels) {
    if (Has(b.labels, c)) {
      (Has(out, c) ? batch : contracted) += c;
    } else {
      free_a += c;
    }
  }
  for (char c : b.labels) {
    if (!Has(a.labels, c)) free_b += c;
  }
  auto product = [](const Term& t, const std::string& labels) {
    int64_t n = 1;
    for (char c : labels) n *= Extent(t, c);
    return n;
  };
  const int64_t nb = product(a, batch), m = product(a, free_a), k = product(a, contracted),
                n = product(b, free_b);
  const Array lhs = reshape(Ordered(a, batch + free_a + contracted), {nb, m, k});
  const Array rhs = reshape(Ordered(b, batch + contracted + free_b), {nb, k, n});
  Shape shape;
  for (char c : batch) shape.push_back(Extent(a, c));
  for (char c : free_a) shape.push_back(Extent(a, c));
  for (char c : free_b) shape.push_back(Extent(b, c));
  Term result{reshape(matmul(lhs, rhs), shape), batch + free_a + free_b};
  return {Ordered(result, out), out};
}

/// `term` with each label that repeats in it reduced to one axis, the diagonal.
Term Diagonal(Term term, const std::function<void(const std::string&)>& fail) {
  for (size_t d = 0; d < term.labels.size(); ++d) {
    const char c = term.labels[d];
    if (std::count(term.labels.begin(), term.labels.end(), c) < 2) continue;
    std::vector<int64_t> perm;
    std::string labels;
    Shape shape;
    for (size_t e = 0; e < term.labels.size(); ++e) {
      if (term.labels[e] != c) {
        perm.push_back(static_cast<int64_t>(e));
        labels += term.labels[e];
        shape.push_back(term.value.shape()[e]);
      }
    }
    const int64_t n = term.value.shape()[d];
    int64_t flat = 1, step = 0;  // the repeated axes' joint extent, and the diagonal's stride
    for (size_t e = 0; e < term.labels.size(); ++e) {
      if (term.labels[e] != c) continue;
      if (term.value.shape()[e] != n) {
        fail(absl::StrCat("label '", std::string(1, c), "' repeats with extents ", n, " and ",
                          term.value.shape()[e]));
      }
      perm.push_back(static_cast<int64_t>(e));
      step += flat;
      flat *= n;
    }
    Shape joined = shape;
    joined.push_back(flat);
    Array x = reshape(transpose(term.value, perm), joined);
    // Element (i, i, ..., i) of the joined axes sits at i * (1 + n + n^2 + ...).
    x = x.index({ellipsis, Slice(0, flat, std::max<int64_t>(step, 1))});
    term = {x, labels + c};
    d = static_cast<size_t>(-1);  // the labels moved: look again from the start
  }
  return term;
}

/// `subscripts` without its "...", failing on anything else that is not a letter (`where`
/// names the subscripts in the message).
std::string LettersOf(const std::string& subscripts, const std::string& where,
                      const std::function<void(const std::string&)>& fail) {
  std::string letters = subscripts;
  if (const size_t dots = letters.find("..."); dots != std::string::npos) letters.erase(dots, 3);
  for (char c : letters) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      fail(absl::StrCat("'", std::string(1, c), "' in ", where,
                        " is not a letter (or a whole '...')"));
    }
  }
  return letters;
}

/// The label of broadcast ellipsis axis `position` (0 the outermost): below 'A', above ','.
char EllipsisLabel(int64_t position) { return static_cast<char>('.' + 1 + position); }

bool IsEllipsisLabel(char c) { return c > '.' && c < 'A'; }

}  // namespace

Array einsum(const std::string& subscripts, const std::vector<Array>& operands,
             std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  std::string spec;
  for (char c : subscripts) {
    if (c != ' ') spec += c;
  }
  const size_t arrow = spec.find("->");
  const std::string inputs = spec.substr(0, arrow);
  const std::vector<std::string> terms = absl::StrSplit(inputs, ',');
  auto fail = [&](const std::string& why) {
    detail::ThrowInvalid(absl::StrCat("einsum(\"", subscripts, "\"): ", why));
  };
  if (terms.size() != operands.size()) {
    fail(absl::StrCat(terms.size(), " terms for ", operands.size(), " operands"));
  }
  // Expand each ellipsis into labels of the broadcast leading axes, right-aligned.
  std::vector<std::string> expanded(terms.size());
  std::vector<int64_t> ellipsis_rank(terms.size(), -1);
  int64_t broadcast_rank = 0;
  for (size_t t = 0; t < terms.size(); ++t) {
    const std::string& labels = terms[t];
    const size_t dots = labels.find("...");
    const std::string letters = LettersOf(labels, absl::StrCat("term '", labels, "'"), fail);
    const int64_t rank = operands[t].ndim(), named = static_cast<int64_t>(letters.size());
    if (dots == std::string::npos ? named != rank : named > rank) {
      fail(absl::StrCat("term '", labels, "' has ", named, " labels for operand ", t, " ",
                        TypeText(operands[t])));
    }
    if (dots != std::string::npos) {
      ellipsis_rank[t] = rank - named;
      broadcast_rank = std::max(broadcast_rank, ellipsis_rank[t]);
    }
  }
  if (broadcast_rank > 'A' - '.' - 1) fail("an ellipsis covers too many axes");
  Shape broadcast(static_cast<size_t>(broadcast_rank), 1);
  for (size_t t = 0; t < terms.size(); ++t) {
    if (ellipsis_rank[t] < 0) {
      expanded[t] = terms[t];
      continue;
    }
    const size_t dots = terms[t].find("...");
    std::string middle;
    for (int64_t e = 0; e < ellipsis_rank[t]; ++e) {
      const int64_t position = broadcast_rank - ellipsis_rank[t] + e;
      middle += EllipsisLabel(position);
      const int64_t n = operands[t].shape()[dots + e];
      int64_t& common = broadcast[position];
      if (n != 1 && common != 1 && n != common) {
        fail(absl::StrCat("the ellipsis axes of operand ", t, " ", TypeText(operands[t]),
                          " do not broadcast with the others"));
      }
      if (n != 1) common = n;
    }
    expanded[t] = terms[t].substr(0, dots) + middle + terms[t].substr(dots + 3);
  }
  std::vector<Term> pending;
  std::vector<int64_t> extent(128, -1);
  for (size_t t = 0; t < terms.size(); ++t) {
    const std::string& labels = expanded[t];
    Array value = operands[t];
    if (ellipsis_rank[t] > 0) {  // broadcast the ellipsis axes of extent 1 to the common ones
      Shape shape = value.shape();
      for (size_t d = 0; d < labels.size(); ++d) {
        if (IsEllipsisLabel(labels[d])) shape[d] = broadcast[labels[d] - '.' - 1];
      }
      if (shape != value.shape()) value = broadcast_to(value, shape);
    }
    for (size_t d = 0; d < labels.size(); ++d) {
      const char c = labels[d];
      if (IsEllipsisLabel(c)) continue;
      const int64_t n = value.shape()[d];
      if (extent[c] >= 0 && extent[c] != n && labels.find(c) == d) {
        fail(absl::StrCat("label '", std::string(1, c), "' is ", extent[c], " and ", n,
                          " long (operand ", t, " ", TypeText(operands[t]), ")"));
      }
      if (labels.find(c) == d) extent[c] = n;
    }
    pending.push_back(Diagonal({value, labels}, fail));
  }
  std::string all_inputs;
  for (const std::string& e : expanded) all_inputs += e + ",";
  std::string ellipsis_out;
  for (int64_t p = 0; p < broadcast_rank; ++p) ellipsis_out += EllipsisLabel(p);
  std::string out;
  if (arrow == std::string::npos) {
    // Implicit mode: the ellipsis axes, then the labels seen exactly once, alphabetically.
    std::string once;
    for (char c : inputs) {
      if (c != ',' && c != '.' && std::count(inputs.begin(), inputs.end(), c) == 1) once += c;
    }
    std::sort(once.begin(), once.end());
    out = ellipsis_out + once;
  } else {
    std::string written = spec.substr(arrow + 2);
    const size_t dots = written.find("...");
    LettersOf(written, absl::StrCat("the output '", written, "'"), fail);
    if (dots != std::string::npos) {
      written = written.substr(0, dots) + ellipsis_out + written.substr(dots + 3);
    } else {
      for (int64_t p = 0; p < broadcast_rank; ++p) {
        if (broadcast[p] != 1) {
          fail("the output has no '...' for the axes an input's ellipsis covers");
        }
      }
    }
    out = written;
    for (size_t d = 0; d < out.size(); ++d) {
      if (IsEllipsisLabel(out[d])) continue;
      if (!Has(all_inputs, out[d]) || out.find(out[d]) != d) {
        fail(absl::StrCat("output label '", std::string(1, out[d]), "' ",
                          Has(all_inputs, out[d]) ? "repeats" : "is in no input"));
      }
    }
  }
  if (pending.empty()) fail("no operands");
  Term acc = pending[0];
  for (size_t t = 1; t < pending.size(); ++t) {
    // Keep what the result or a later operand needs, in order of first appearance.
    std::string later = out;
    for (size_t u = t + 1; u < pending.size(); ++u) later += pending[u].labels;
    std::string keep;
    for (char c : acc.labels + pending[t].labels) {
      if (Has(later, c) && !Has(keep, c)) keep += c;
    }
    acc = Contract(acc, pending[t], keep);
  }
  acc = SumOut(acc, out);
  return Ordered(acc, out);
}

}  // namespace gpuc
