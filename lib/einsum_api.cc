//===- einsum_api.cc - numpy.einsum as sums, transposes and GEMMs ---------===//
//
// Operands are contracted left to right, two at a time. Each pair becomes one batched matmul:
// labels in both operands that the result keeps are batch axes, labels in both that it drops
// are the contracted axis, the others are each side's free axes; every transpose and reshape
// around the GEMM is a view that fuses. A label only one operand has and nothing later needs
// is summed out first (a fused reduction), as is every dropped label of a single operand.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gpuc/elementwise.h"
#include "gpuc/linalg.h"
#include "gpuc/manipulation.h"
#include "gpuc/reductions.h"
#include "lib/array_impl.h"
#include "lib/recorder.h"

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
  std::vector<Term> pending;
  std::vector<int64_t> extent(128, -1);
  for (size_t t = 0; t < terms.size(); ++t) {
    const std::string& labels = terms[t];
    if (static_cast<int64_t>(labels.size()) != operands[t].ndim()) {
      fail(absl::StrCat(
          "term '", labels, "' has ", labels.size(), " labels for operand ", t, " ",
          TypeText(operands[t]),
          labels.find('.') != std::string::npos ? " (ellipses are not supported)" : ""));
    }
    for (size_t d = 0; d < labels.size(); ++d) {
      const char c = labels[d];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
        fail(absl::StrCat("'", std::string(1, c), "' is not a letter"));
      }
      if (labels.find(c) != d) {
        fail(absl::StrCat("label '", std::string(1, c), "' repeats in term '", labels,
                          "' (diagonals are not supported)"));
      }
      const int64_t n = operands[t].shape()[d];
      if (extent[c] >= 0 && extent[c] != n) {
        fail(absl::StrCat("label '", std::string(1, c), "' is ", extent[c], " and ", n,
                          " long (operand ", t, " ", TypeText(operands[t]), ")"));
      }
      extent[c] = n;
    }
    pending.push_back({operands[t], labels});
  }
  std::string out;
  if (arrow == std::string::npos) {
    // Implicit mode: the labels seen exactly once, alphabetically.
    for (char c : inputs) {
      if (c != ',' && std::count(inputs.begin(), inputs.end(), c) == 1) out += c;
    }
    std::sort(out.begin(), out.end());
  } else {
    out = spec.substr(arrow + 2);
    for (size_t d = 0; d < out.size(); ++d) {
      if (!Has(inputs, out[d]) || out.find(out[d]) != d) {
        fail(absl::StrCat("output label '", std::string(1, out[d]), "' ",
                          Has(inputs, out[d]) ? "repeats" : "is in no input"));
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
