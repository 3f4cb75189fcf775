#!/usr/bin/env python3
"""The peers' half of `scripts/device-check.sh library`: the library workloads of
`bench_gpu --library` (issue 8) in CuPy and torch (torch.compile where it fuses anything: the
GEMM with bias and GELU), written as their users would and timed as peers.py times them
(batches of back-to-back calls between CUDA events, median over batches). Inputs are uniform
random in [-1, 1) of gpuc's shapes and dtypes; f32 GEMMs stay IEEE f32 (no TF32) in all three.
Prints one JSON object per line. Usage: library_peers.py [--quick] [--only=cupy,torch]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (report, time_events)

QUICK = "--quick" in sys.argv
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), None)
G = 2048 if QUICK else 4096
SIGNAL = (1 << 20) if QUICK else (1 << 24)
peers.BATCHES, peers.BATCH = (5, 3) if QUICK else (15, 10)
GEMM_FLOPS = 2.0 * G ** 3
SMALL = 512  # a layer small enough that the epilogue's saved pass and launch show
SMALL_FLOPS = 2.0 * SMALL ** 3
SIDE = 512 if QUICK else 2048


def poisson_scipy():
    """The 5-point Laplacian on a SIDE x SIDE grid, CSR with int32 structure, f32 values."""
    import numpy as np
    import scipy.sparse as sp
    one = sp.diags([-1, 4, -1], [-1, 0, 1], shape=(SIDE, SIDE), dtype=np.float32)
    eye = sp.identity(SIDE, dtype=np.float32)
    lap = (sp.kron(eye, one) + sp.kron(sp.diags([-1, -1], [-1, 1], shape=(SIDE, SIDE)), eye))
    lap = lap.astype(np.float32).tocsr()
    lap.sort_indices()
    return lap


def report(impl, name, ms, flops=0):
    extra = {"tflops": flops / (ms * 1e9)} if flops else {}
    peers.report(impl, name, ms, **extra)


def run_cupy():
    import cupy as cp
    rng = cp.random.default_rng(1)
    u = lambda shape, dtype=cp.float32: rng.uniform(-1, 1, shape, dtype=cp.float64).astype(dtype)
    cu = lambda shape: (u(shape) + 1j * u(shape)).astype(cp.complex64)
    ev = lambda: cp.cuda.Event()
    sync = cp.cuda.Device().synchronize
    t = lambda fn: peers.time_events(ev, sync, fn)
    for name, dtype in (("sgemm", cp.float32), ("dgemm", cp.float64), ("hgemm", cp.float16)):
        a, b = u((G, G), dtype), u((G, G), dtype)
        report("cupy", name, t(lambda: a @ b), GEMM_FLOPS)
    a, w, bias = u((G, G)), u((G, G)), u((G,))

    from cupyx.scipy.special import erf

    def gelu(a, w, bias):
        x = a @ w + bias
        return x * cp.float32(0.5) * (cp.float32(1) + erf(x * cp.float32(0.7071067811865476)))
    report("cupy", "gemm_bias_gelu", t(lambda: gelu(a, w, bias)), GEMM_FLOPS)
    report("cupy", "gemm_bias_relu", t(lambda: cp.maximum(a @ w + bias, cp.float32(0))), GEMM_FLOPS)
    sa, sw, sb = u((SMALL, SMALL)), u((SMALL, SMALL)), u((SMALL,))
    report("cupy", "gemm_bias_relu_small",
           t(lambda: cp.maximum(sa @ sw + sb, cp.float32(0))), SMALL_FLOPS)
    x = cu((1024, 4096))
    report("cupy", "fft_c2c_1024x4096", t(lambda: cp.fft.fft(x, axis=1)))
    s = u(SIGNAL)
    report("cupy", "rfft", t(lambda: cp.fft.rfft(s)))
    s2 = u(SIGNAL)
    report("cupy", "fft_convolution",
           t(lambda: cp.fft.irfft(cp.fft.rfft(s) * cp.fft.rfft(s2), n=SIGNAL)))
    import cupyx.scipy.sparse as cps
    lap = cps.csr_matrix(poisson_scipy())
    v = u(SIDE * SIDE)
    report("cupy", "spmv_poisson", t(lambda: lap @ v))


def run_torch():
    import torch
    torch.manual_seed(1)
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = "cuda"
    u = lambda shape, dtype=torch.float32: torch.empty(shape, device=dev, dtype=torch.float64).uniform_(-1, 1).to(dtype)
    ev = lambda: torch.cuda.Event(enable_timing=True)
    t = lambda fn: peers.time_events(ev, torch.cuda.synchronize, fn)
    for name, dtype in (("sgemm", torch.float32), ("dgemm", torch.float64), ("hgemm", torch.float16)):
        a, b = u((G, G), dtype), u((G, G), dtype)
        report("torch", name, t(lambda: a @ b), GEMM_FLOPS)
    a, w, bias = u((G, G)), u((G, G)), u((G,))
    gelu = torch.compile(lambda a, w, b: torch.nn.functional.gelu(a @ w + b))
    report("torch.compile", "gemm_bias_gelu", t(lambda: gelu(a, w, bias)), GEMM_FLOPS)
    relu = torch.compile(lambda a, w, b: torch.relu(a @ w + b))
    report("torch.compile", "gemm_bias_relu", t(lambda: relu(a, w, bias)), GEMM_FLOPS)
    sa, sw, sb = u((SMALL, SMALL)), u((SMALL, SMALL)), u((SMALL,))
    relu_small = torch.compile(lambda a, w, b: torch.relu(a @ w + b))
    report("torch.compile", "gemm_bias_relu_small", t(lambda: relu_small(sa, sw, sb)), SMALL_FLOPS)
    x = torch.complex(u((1024, 4096)), u((1024, 4096)))
    report("torch", "fft_c2c_1024x4096", t(lambda: torch.fft.fft(x, dim=1)))
    s, s2 = u(SIGNAL), u(SIGNAL)
    report("torch", "rfft", t(lambda: torch.fft.rfft(s)))
    conv = torch.compile(lambda a, b: torch.fft.irfft(torch.fft.rfft(a) * torch.fft.rfft(b), n=SIGNAL))
    report("torch.compile", "fft_convolution", t(lambda: conv(s, s2)))
    lap = poisson_scipy()
    a = torch.sparse_csr_tensor(torch.from_numpy(lap.indptr.astype("int32")),
                                torch.from_numpy(lap.indices.astype("int32")),
                                torch.from_numpy(lap.data), size=lap.shape).to(dev)
    v = u(SIDE * SIDE)
    report("torch", "spmv_poisson", t(lambda: a @ v))


if __name__ == "__main__":
    for name, fn in (("torch", run_torch), ("cupy", run_cupy)):
        if ONLY and name not in ONLY:
            continue
        try:
            fn()
        except Exception as e:  # a missing peer is reported, not fatal
            peers.report(name, "error", message=f"{type(e).__name__}: {e}")
