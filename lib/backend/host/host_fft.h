//===- host_fft.h - fft nodes on the host in O(n log n) -------------------===//
//
// The fft library node on the host: each line along each transformed axis by an iterative
// radix-2 FFT when its length is a power of two, by Bluestein's chirp-z algorithm (three
// power-of-two FFTs) otherwise, in complex<double> with twiddles computed directly from
// their angles (no recurrences, so errors stay at a few ulps times log n), rounded once to
// the node's dtype. The kinds, attributes and normalization are ir/fft_semantics.h's, shared
// with the interpreter's direct DFT, which stays the reference (host_fft_test). Written here
// because Debian ships no double-precision CPU FFT library under a permissive licence
// (kissfft is float-only there; FFTW is GPL).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_HOST_FFT_H_
#define GPUC_LIB_BACKEND_HOST_HOST_FFT_H_

#include "absl/status/statusor.h"
#include "ir/host_tensor.h"
#include "ir/node.h"

namespace gpuc::detail {

/// `node` (an fft node) applied to `input`.
absl::StatusOr<ir::HostTensor> HostFft(const ir::Node& node, const ir::HostTensor& input);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_HOST_FFT_H_
