#!/usr/bin/env python3
"""The peers' half of `scripts/device-check.sh user-kernels` (issue 9): CuPy on the chain of
`bench_gpu --user-kernels`, written as its users would (cp.exp, the user's ElementwiseKernel,
then u * u + 1 as separate kernels), and the same chain hand-fused into one ElementwiseKernel
for reference; then the cold NVRTC compile and warm disk-cache load of the same RawKernel
source as gpuc's, each in a fresh Python process (CUPY_CACHE_DIR fresh, then reused), after
CuPy's context exists. Timed as peers.py times (batches of calls between CUDA events, median).
Prints one JSON object per line. Usage: user_kernel_peers.py [--quick]"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (report, time_events)

QUICK = "--quick" in sys.argv
N = (1 << 24) if QUICK else (1 << 28)
peers.BATCHES, peers.BATCH = (5, 10) if QUICK else (15, 10)

SOFT_CLIP = "u = e / (1.0f + fabsf(e)) + 0.5f * x"

# The same source bench/gpu/user_kernels_bench.cc compiles with gpuc::RawKernel.
HEAT_STEP = r"""
__device__ inline float laplacian(const float* u, int i, int j, int nx) {
  return u[(i - 1) * nx + j] + u[(i + 1) * nx + j] + u[i * nx + j - 1] + u[i * nx + j + 1] -
         4.0f * u[i * nx + j];
}

extern "C" __global__ void heat_step(float* out, const float* u, int nx, int ny, float alpha) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ny || j >= nx) return;
  if (i == 0 || j == 0 || i == ny - 1 || j == nx - 1) {
    out[i * nx + j] = u[i * nx + j];
  } else {
    out[i * nx + j] = u[i * nx + j] + alpha * laplacian(u, i, j, nx);
  }
}
"""


def run_chain():
    import cupy as cp
    import numpy as np
    soft_clip = cp.ElementwiseKernel("T e, T x", "T u", SOFT_CLIP, "soft_clip")
    whole = cp.ElementwiseKernel(
        "T x", "T y", "T e = expf(x); T u = e / (1.0f + fabsf(e)) + 0.5f * x; y = u * u + 1.0f",
        "soft_clip_chain")

    def chain(x):
        u = soft_clip(cp.exp(x), x)
        return u * u + cp.float32(1)

    # Correct first: both against NumPy in float64 on a small input.
    small = cp.random.default_rng(3).uniform(-4, 4, 1 << 16, dtype=cp.float32)
    xs = cp.asnumpy(small).astype(np.float64)
    es = np.exp(xs)
    us = es / (1 + np.abs(es)) + 0.5 * xs
    want = us * us + 1
    for fn in (chain, whole):
        got = cp.asnumpy(fn(small)).astype(np.float64)
        err = float(np.max(np.abs(got - want) / np.maximum(1, np.abs(want))))
        assert err < 1e-5, f"CuPy chain differs from NumPy by {err}"

    x = cp.random.default_rng(1).uniform(-4, 4, N, dtype=cp.float32)
    ev = lambda: cp.cuda.Event()
    sync = cp.cuda.Device().synchronize
    for impl, fn, kernels in (("cupy", chain, 4), ("cupy.hand_fused", whole, 1)):
        ms = peers.time_events(ev, sync, lambda: fn(x))
        peers.report(impl, "user_op_chain", ms, gbps=N * 8 / (ms * 1e6), kernels=kernels)


COMPILE_ONCE = r"""
import json, sys, time
import cupy as cp
src, phase = sys.stdin.read(), sys.argv[1]
nx = ny = 1024
u = cp.random.default_rng(11).uniform(0, 1, (ny, nx), dtype=cp.float32)
out = cp.empty_like(u)
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
k = cp.RawKernel(src, "heat_step")
k.compile()
compile_ms = (time.perf_counter() - t0) * 1e3
t0 = time.perf_counter()
k(((nx + 31) // 32, (ny + 7) // 8), (32, 8), (out, u, cp.int32(nx), cp.int32(ny), cp.float32(0.1)))
cp.cuda.Device().synchronize()
first_ms = (time.perf_counter() - t0) * 1e3
c = (ny // 2, nx // 2)
h = cp.asnumpy(u)
want = h[c] + 0.1 * (h[c[0] - 1, c[1]] + h[c[0] + 1, c[1]] + h[c[0], c[1] - 1] + h[c[0], c[1] + 1] - 4 * h[c])
assert abs(float(out[c]) - want) < 1e-5, "heat_step wrote a wrong value"
print(json.dumps({"impl": "cupy", "workload": "raw_kernel_compile_" + phase, "ms": compile_ms,
                  "first_launch_ms": first_ms}), flush=True)
"""


def run_compile_times():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, CUPY_CACHE_DIR=cache, CUPY_CACHE_IN_MEMORY="0")
        for phase in ("cold", "warm"):
            subprocess.run([sys.executable, "-c", COMPILE_ONCE, phase], input=HEAT_STEP,
                           text=True, env=env, check=True)


if __name__ == "__main__":
    for fn in (run_compile_times, run_chain):
        try:
            fn()
        except Exception as e:  # a missing peer is reported, not fatal
            peers.report("cupy", "error", message=f"{fn.__name__}: {type(e).__name__}: {e}")
