//===- host_library_steps.h - Plan steps without a compiled kernel --------===//
//
// A step that code generation does not compile (a library op, a scan, a kernel without a
// lowering yet) runs here on host values: matmuls of BLAS dtypes through OpenBLAS, FFTs,
// checked sparse products, LAPACK routines and sorts through their host implementations, the
// rest on the reference interpreter. The host executor runs such steps in place; the CUDA executor
// between a download and an upload.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_HOST_HOST_LIBRARY_STEPS_H_
#define GPUC_LIB_BACKEND_HOST_HOST_LIBRARY_STEPS_H_

#include <string>

#include "absl/status/status.h"
#include "ir/host_tensor.h"
#include "lib/exec/plan_values.h"
#include "passes/fusion.h"

namespace gpuc::detail {

/// Runs `kernel`'s members on the host, reading its inputs from `values` and adding its
/// outputs there (the members in between are not kept): matmuls of BLAS dtypes through the
/// CPU BLAS (lib/backend/host/host_blas.h), the rest on the reference interpreter; an
/// in-place update_slice as a copy of its region. A member with numbered positions reads its
/// offsets from `positions` when they are given (ir/positions.h).
absl::Status InterpretFusedKernel(const passes::FusedKernel& kernel,
                                  PlanValues<ir::HostTensor>& values,
                                  absl::Span<const int64_t> positions = {});

/// The library ops and scans that ran on the reference interpreter inside a plan (no typed
/// host implementation yet: scatters, integer products, complex cumulative products), by op
/// name, since the process started: what `--stats` reports, so a step that left the compiled
/// path is named. With GPUC_EXPLAIN=1 the first of each op says so on stderr.
std::string InterpretedOpsText();

/// Whether every nonzero offset of `kernel`'s members reads a numbered position, so
/// InterpretFusedKernel runs it at any positions.
bool InterpretedOffsetsArePositions(const passes::FusedKernel& kernel);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_HOST_HOST_LIBRARY_STEPS_H_
