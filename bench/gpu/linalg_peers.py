#!/usr/bin/env python3
"""The peers' half of `bench_gpu --linalg` (issue 33): CuPy (cuSOLVER underneath) and torch on
the same dense problems, timed as gpuc's TimeApiCall times (the first call, then the median of
later ones, each synchronized). One JSON line per figure.

    python3 bench/gpu/linalg_peers.py [--quick] [--only cupy|torch]
"""
import json
import sys
import time

QUICK = "--quick" in sys.argv
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
PROBLEMS = [(1, 1024, "float64"), (1, 1024, "float32"), (256, 64, "float64")]
if not QUICK:
    PROBLEMS += [(1, 4096, "float64"), (1, 4096, "float32")]


def report(impl, name, run, sync, repeat):
    sync()
    start = time.perf_counter()
    run()
    sync()
    cold = (time.perf_counter() - start) * 1e3
    warm = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        sync()
        warm.append((time.perf_counter() - start) * 1e3)
    print(json.dumps({"impl": impl, "workload": name, "ms": round(sorted(warm)[len(warm) // 2], 4),
                      "cold_ms": round(cold, 2)}), flush=True)


def problems(xp, uniform, eye, transpose):
    for batch, n, dtype in PROBLEMS:
        square = (n, n) if batch == 1 else (batch, n, n)
        a = uniform(square, dtype) + eye(n, dtype) * n
        spd = a + transpose(a)
        b = uniform((n, 1) if batch == 1 else (batch, n, 1), dtype)
        size = ("" if batch == 1 else f"{batch}x") + f"{n}x{n}_{'f64' if dtype == 'float64' else 'f32'}"
        yield size, a, spd, b


def run_cupy():
    import cupy as cp
    g = cp.random.default_rng(33)
    impl = "cupy " + cp.__version__
    sync = cp.cuda.Device().synchronize
    for size, a, spd, b in problems(
            cp, lambda s, d: g.uniform(-1, 1, s).astype(d), lambda n, d: cp.eye(n, dtype=d),
            lambda x: cp.swapaxes(x, -1, -2)):
        report(impl, "solve_" + size, lambda: cp.linalg.solve(a, b), sync, 5)
        report(impl, "inv_" + size, lambda: cp.linalg.inv(a), sync, 5)
        report(impl, "det_" + size, lambda: cp.linalg.det(a), sync, 5)
        report(impl, "cholesky_" + size, lambda: cp.linalg.cholesky(spd), sync, 5)
        report(impl, "eigh_" + size, lambda: cp.linalg.eigh(spd)[1], sync, 3)


def run_torch():
    import torch
    g = torch.Generator(device="cuda").manual_seed(33)
    impl = "torch " + torch.__version__
    dtypes = {"float64": torch.float64, "float32": torch.float32}

    def uniform(s, d):
        return torch.rand(s, generator=g, device="cuda", dtype=dtypes[d]) * 2 - 1

    sync = torch.cuda.synchronize
    for size, a, spd, b in problems(
            torch, uniform, lambda n, d: torch.eye(n, device="cuda", dtype=dtypes[d]),
            lambda x: x.transpose(-1, -2)):
        report(impl, "solve_" + size, lambda: torch.linalg.solve(a, b), sync, 5)
        report(impl, "inv_" + size, lambda: torch.linalg.inv(a), sync, 5)
        report(impl, "det_" + size, lambda: torch.linalg.det(a), sync, 5)
        report(impl, "cholesky_" + size, lambda: torch.linalg.cholesky(spd), sync, 5)
        report(impl, "eigh_" + size, lambda: torch.linalg.eigh(spd)[1], sync, 3)


if __name__ == "__main__":
    for peer, run in (("cupy", run_cupy), ("torch", run_torch)):
        if ONLY in (None, peer):
            try:
                run()
            except ImportError as e:
                print(json.dumps({"impl": peer, "skipped": str(e)}), flush=True)
