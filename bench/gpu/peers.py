#!/usr/bin/env python3
"""The peers' half of `scripts/device-check.sh bench`: issue 6's workloads in CuPy, cupy.fuse,
JAX jit and torch.compile, written as their users would, timed as bench_gpu times gpuc (batches of 10
back-to-back calls between CUDA events, median over batches; JAX, which has no events,
between block_until_ready calls). Inputs are uniform random of the same shapes and ranges as
gpuc's. Prints one JSON object per line. Usage: peers.py [--quick] [--only=cupy,jax,...]"""
import json
import math
import os
import statistics
import sys
import time

QUICK = "--quick" in sys.argv
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), None)
N28 = 1 << 24 if QUICK else 1 << 28
N26 = 1 << 22 if QUICK else 1 << 26
ROWS, COLS = (4096 if QUICK else 65536), 4096
SQUARE = 4096 if QUICK else 16384
BATCHES, BATCH = (5 if QUICK else 15), 10


def report(impl, workload, ms=None, **extra):
    row = {"impl": impl, "workload": workload}
    if ms is not None:
        row["ms"] = ms
    row.update(extra)
    print(json.dumps(row), flush=True)


BYTES = {
    "exp_mul_add": N28 * 8, "black_scholes": N26 * 20, "sum": N28 * 4,
    "softmax_rows": ROWS * COLS * 8, "layernorm_rows": ROWS * COLS * 8,
    "column_sum": SQUARE * SQUARE * 4, "mean_var": N28 * 4,
}


def bandwidth(impl, name, ms, kernels=None):
    extra = {"gbps": BYTES[name] / (ms * 1e6)}
    report(impl, name, ms, **extra)


def time_events(event_cls, sync, fn):
    for _ in range(3):
        fn()
    sync()
    runs = []
    for _ in range(BATCHES):
        start, end = event_cls(), event_cls()
        start.record()
        for _ in range(BATCH):
            fn()
        end.record()
        end.synchronize()
        runs.append(start_end_ms(start, end) / BATCH)
    return statistics.median(runs)


def start_end_ms(start, end):
    try:
        return start.elapsed_time(end)  # torch
    except AttributeError:
        import cupy
        return cupy.cuda.get_elapsed_time(start, end)


def run_cupy():
    import cupy as cp
    rng = cp.random.default_rng(1)
    u = lambda shape, lo=-2.0, hi=2.0: rng.uniform(lo, hi, shape, dtype=cp.float32)
    ev = lambda: cp.cuda.Event()
    sync = cp.cuda.Device().synchronize
    x28, x26 = u(N28), None
    s, k, t = (u(N26, 10.0, 20.0) for _ in range(3))
    rows, square = u((ROWS, COLS)), u((SQUARE, SQUARE))
    r, v = cp.float32(0.02), cp.float32(0.3)

    def bs(s, k, t):
        d1 = (cp.log(s / k) + (r + v * v * cp.float32(0.5)) * t) / (v * cp.sqrt(t))
        d2 = d1 - v * cp.sqrt(t)
        from cupyx.scipy.special import erf
        n1 = (erf(d1 * cp.float32(0.7071067811865476)) + 1) * cp.float32(0.5)
        n2 = (erf(d2 * cp.float32(0.7071067811865476)) + 1) * cp.float32(0.5)
        kd = k * cp.exp(-r * t)
        call = s * n1 - kd * n2
        return call, call - s + kd

    def softmax(x):
        e = cp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def layernorm(x):
        m = x.mean(axis=1, keepdims=True)
        d = x - m
        return d / cp.sqrt((d * d).mean(axis=1, keepdims=True) + cp.float32(1e-5))

    cases = {
        "exp_mul_add": lambda: cp.exp(x28) * 2 + x28,
        "black_scholes": lambda: bs(s, k, t),
        "sum": lambda: x28.sum(),
        "softmax_rows": lambda: softmax(rows),
        "layernorm_rows": lambda: layernorm(rows),
        "column_sum": lambda: square.sum(axis=0),
        "mean_var": lambda: (x28.mean(), x28.var()),
    }
    for name, fn in cases.items():
        bandwidth("cupy", name, time_events(ev, sync, fn))
    @cp.fuse
    def fused_ema(x):
        return cp.exp(x) * 2 + x
    bandwidth("cupy.fuse", "exp_mul_add", time_events(ev, sync, lambda: fused_ema(x28)))

    @cp.fuse
    def bs_fused(s, k, t):
        d1 = (cp.log(s / k) + (r + v * v * cp.float32(0.5)) * t) / (v * cp.sqrt(t))
        d2 = d1 - v * cp.sqrt(t)
        kd = k * cp.exp(-r * t)
        from cupyx.scipy.special import erf
        n1 = (erf(d1 * cp.float32(0.7071067811865476)) + 1) * cp.float32(0.5)
        n2 = (erf(d2 * cp.float32(0.7071067811865476)) + 1) * cp.float32(0.5)
        call = s * n1 - kd * n2
        return call, call - s + kd
    bandwidth("cupy.fuse", "black_scholes", time_events(ev, sync, lambda: bs_fused(s, k, t)))
    x1k = u(1024, -1.0, 1.0)

    def chain(x):
        y = x * 1.5 + 0.25
        y = cp.sin(y) * y
        y = y - x * 0.5
        y = cp.exp(-cp.abs(y)) + y
        return cp.sqrt(y * y + 1.0)
    chain_fused = cp.fuse(chain)
    for impl, fn in (("cupy", chain), ("cupy.fuse", chain_fused)):
        for _ in range(50):
            cp.asnumpy(fn(x1k))
        us = []
        for _ in range(1000):
            t0 = time.perf_counter()
            cp.asnumpy(fn(x1k))
            us.append((time.perf_counter() - t0) * 1e6)
        report(impl, "chain10_1024_call", us=statistics.median(us))


def run_torch():
    import torch
    torch.manual_seed(1)
    dev = "cuda"
    u = lambda shape, lo=-2.0, hi=2.0: torch.empty(shape, device=dev).uniform_(lo, hi)
    x28 = u(N28)
    s, k, t = (u(N26, 10.0, 20.0) for _ in range(3))
    rows, square = u((ROWS, COLS)), u((SQUARE, SQUARE))

    def bs(s, k, t):
        r, v = 0.02, 0.3
        d1 = (torch.log(s / k) + (r + v * v * 0.5) * t) / (v * torch.sqrt(t))
        d2 = d1 - v * torch.sqrt(t)
        n1 = (torch.erf(d1 * 0.7071067811865476) + 1) * 0.5
        n2 = (torch.erf(d2 * 0.7071067811865476) + 1) * 0.5
        kd = k * torch.exp(-r * t)
        call = s * n1 - kd * n2
        return call, call - s + kd

    def softmax(x):
        e = torch.exp(x - x.amax(dim=1, keepdim=True))
        return e / e.sum(dim=1, keepdim=True)

    def layernorm(x):
        m = x.mean(dim=1, keepdim=True)
        d = x - m
        return d * torch.rsqrt((d * d).mean(dim=1, keepdim=True) + 1e-5)

    cases = {
        "exp_mul_add": (lambda x: torch.exp(x) * 2 + x, (x28,)),
        "black_scholes": (bs, (s, k, t)),
        "sum": (lambda x: x.sum(), (x28,)),
        "softmax_rows": (softmax, (rows,)),
        "layernorm_rows": (layernorm, (rows,)),
        "column_sum": (lambda x: x.sum(dim=0), (square,)),
        "mean_var": (lambda x: (x.mean(), x.var(correction=0)), (x28,)),
    }
    ev = lambda: torch.cuda.Event(enable_timing=True)
    for name, (fn, args) in cases.items():
        compiled = torch.compile(fn)
        bandwidth("torch.compile", name, time_events(ev, torch.cuda.synchronize,
                                                     lambda: compiled(*args)))
    x1k = u(1024, -1.0, 1.0)

    def chain(x):
        y = x * 1.5 + 0.25
        y = torch.sin(y) * y
        y = y - x * 0.5
        y = torch.exp(-torch.abs(y)) + y
        return torch.sqrt(y * y + 1.0)
    compiled = torch.compile(chain)
    for _ in range(50):
        compiled(x1k).cpu()
    us = []
    for _ in range(1000):
        t0 = time.perf_counter()
        compiled(x1k).cpu()
        us.append((time.perf_counter() - t0) * 1e6)
    report("torch.compile", "chain10_1024_call", us=statistics.median(us))


def run_jax():
    import jax
    import jax.numpy as jnp
    key = jax.random.PRNGKey(1)
    u = lambda shape, lo=-2.0, hi=2.0: jax.random.uniform(key, shape, jnp.float32, lo, hi)
    x28 = u((N28,))
    s, k, t = (u((N26,), 10.0, 20.0) for _ in range(3))
    rows, square = u((ROWS, COLS)), u((SQUARE, SQUARE))

    def bs(s, k, t):
        r, v = 0.02, 0.3
        d1 = (jnp.log(s / k) + (r + v * v * 0.5) * t) / (v * jnp.sqrt(t))
        d2 = d1 - v * jnp.sqrt(t)
        n1 = (jax.scipy.special.erf(d1 * 0.7071067811865476) + 1) * 0.5
        n2 = (jax.scipy.special.erf(d2 * 0.7071067811865476) + 1) * 0.5
        kd = k * jnp.exp(-r * t)
        call = s * n1 - kd * n2
        return call, call - s + kd

    def softmax(x):
        e = jnp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def layernorm(x):
        m = x.mean(axis=1, keepdims=True)
        d = x - m
        return d * jax.lax.rsqrt((d * d).mean(axis=1, keepdims=True) + 1e-5)

    cases = {
        "exp_mul_add": (lambda x: jnp.exp(x) * 2 + x, (x28,)),
        "black_scholes": (bs, (s, k, t)),
        "sum": (lambda x: x.sum(), (x28,)),
        "softmax_rows": (softmax, (rows,)),
        "layernorm_rows": (layernorm, (rows,)),
        "column_sum": (lambda x: x.sum(axis=0), (square,)),
        "mean_var": (lambda x: (x.mean(), x.var()), (x28,)),
    }
    for name, (fn, args) in cases.items():
        f = jax.jit(fn)
        for _ in range(3):
            jax.block_until_ready(f(*args))
        runs = []
        for _ in range(BATCHES):
            t0 = time.perf_counter()
            for _ in range(BATCH):
                out = f(*args)
            jax.block_until_ready(out)
            runs.append((time.perf_counter() - t0) * 1e3 / BATCH)
        bandwidth("jax.jit", name, statistics.median(runs))
    x1k = u((1024,), -1.0, 1.0)

    @jax.jit
    def chain(x):
        y = x * 1.5 + 0.25
        y = jnp.sin(y) * y
        y = y - x * 0.5
        y = jnp.exp(-jnp.abs(y)) + y
        return jnp.sqrt(y * y + 1.0)
    import numpy as np
    for _ in range(50):
        np.asarray(chain(x1k))
    us = []
    for _ in range(1000):
        t0 = time.perf_counter()
        np.asarray(chain(x1k))
        us.append((time.perf_counter() - t0) * 1e6)
    report("jax.jit", "chain10_1024_call", us=statistics.median(us))


if __name__ == "__main__":
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    # torch.compile first: the bar the goals name; CuPy, whose kernels compile fastest, last.
    for name, fn in (("torch", run_torch), ("jax", run_jax), ("cupy", run_cupy)):
        if ONLY and name not in ONLY:
            continue
        try:
            fn()
        except Exception as e:  # a missing peer is reported, not fatal
            report(name, "error", message=f"{type(e).__name__}: {e}")
