#!/usr/bin/env python3
"""The peers' half of `scripts/device-check.sh counting` (issue 35): CuPy (CUB underneath) and
JAX on the problems of `bench_gpu --counting`, written as their users write them, timed as
counting_bench.cc times gpuc: the first call (compiles included) and the median of 7 later
calls, each synchronized. Inputs are drawn on the device. One JSON line per figure.

    python3 bench/gpu/counting_peers.py [--quick] [--only cupy|jax]
"""
import json
import sys
import time

QUICK = "--quick" in sys.argv
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
SCAN = 24 if QUICK else 28
COUNT = 22 if QUICK else 26
ROWS = 20 if QUICK else 24
SORT = 22 if QUICK else 26
UNIQUE = 20 if QUICK else 24
MEDIAN = 1024 if QUICK else 4096


def time_calls(run, sync, repeat=7):
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
    return cold, sorted(warm)[len(warm) // 2]


def report(impl, name, run, sync):
    cold, warm = time_calls(run, sync)
    print(json.dumps({"impl": impl, "workload": name, "ms": round(warm, 4),
                      "cold_ms": round(cold, 2)}), flush=True)


def workloads(xp, rng, add_at, bincount, unique):
    """(name, function, its array arguments) for every problem, inputs drawn once. Arrays go in
    as arguments (a jitted function closing over them would compile them in as constants)."""
    out = []
    x = rng.uniform(-1, 1, 1 << SCAN).astype(xp.float32)
    out.append((f"cumsum_f32_2^{SCAN}", xp.cumsum, (x,)))
    w = rng.uniform(0, 1, 1 << COUNT).astype(xp.float32)
    for bins in (1000, 1000000):
        idx = rng.integers(0, bins, 1 << COUNT).astype(xp.int32)
        out.append((f"bincount_2^{COUNT}_into_{bins}_weighted_f32",
                    lambda i, w, bins=bins: bincount(i, w, bins), (idx, w)))
        out.append((f"bincount_2^{COUNT}_into_{bins}",
                    lambda i, bins=bins: bincount(i, None, bins), (idx,)))
    points = rng.normal(0, 1, (1 << ROWS, 16)).astype(xp.float32)
    labels = rng.integers(0, 64, 1 << ROWS)
    sums = xp.zeros((64, 16), xp.float32)
    out.append((f"add_at_2^{ROWS}x16_into_64_f32", add_at, (sums, labels, points)))
    keys = rng.uniform(-1, 1, 1 << SORT).astype(xp.float32)
    values = rng.integers(0, 1 << 30, 1 << SORT).astype(xp.int32)
    ints = rng.integers(-(1 << 30), 1 << 30, 1 << SORT).astype(xp.int32)
    out.append((f"sort_f32_2^{SORT}", xp.sort, (keys,)))
    out.append((f"argsort_f32_2^{SORT}", xp.argsort, (keys,)))
    out.append((f"sort_pairs_f32_i32_2^{SORT}", lambda k, v: xp.take(v, xp.argsort(k)),
                (keys, values)))
    out.append((f"sort_i32_2^{SORT}", xp.sort, (ints,)))
    u = rng.integers(0, 1 << 20, 1 << UNIQUE).astype(xp.int32)
    out.append((f"unique_i32_2^{UNIQUE}", unique, (u,)))
    m = rng.uniform(0, 1, (MEDIAN, MEDIAN)).astype(xp.float32)
    out.append((f"median_rows_{MEDIAN}x{MEDIAN}_f32", lambda m: xp.median(m, axis=1), (m,)))
    return out


def run_cupy():
    import cupy as cp
    import cupyx
    import numpy as np

    class Rng:  # cupy.random's Generator has no integers() for every dtype: draw as int64
        g = cp.random.default_rng(35)

        def uniform(self, lo, hi, shape):
            return self.g.uniform(lo, hi, shape)

        def normal(self, mu, sd, shape):
            return self.g.standard_normal(shape) * sd + mu

        def integers(self, lo, hi, n):
            return self.g.integers(lo, hi, n, dtype=np.int64)

    def add_at(a, i, v):
        a = a.copy()
        cupyx.scatter_add(a, i, v)
        return a

    def bincount(idx, w, bins):
        return cp.bincount(idx, weights=w, minlength=bins)

    impl = "cupy " + cp.__version__
    for name, f, args in workloads(cp, Rng(), add_at, bincount, cp.unique):
        report(impl, name, lambda: f(*args), cp.cuda.Device().synchronize)


def run_jax():
    import jax
    import jax.numpy as jnp
    import numpy as np

    class Rng:  # drawn with NumPy, placed on the device once
        g = np.random.default_rng(35)

        def uniform(self, lo, hi, shape):
            return jnp.asarray(self.g.uniform(lo, hi, shape).astype(np.float32))

        def normal(self, mu, sd, shape):
            return jnp.asarray(self.g.normal(mu, sd, shape).astype(np.float32))

        def integers(self, lo, hi, n):
            return jnp.asarray(self.g.integers(lo, hi, n).astype(np.int32))

    def add_at(a, i, v):
        return a.at[i].add(v)

    def bincount(idx, w, bins):
        return jnp.bincount(idx, weights=w, length=bins)

    def unique(u):  # not jitted: the size depends on the values
        return jnp.unique(u)

    impl = "jax " + jax.__version__
    for name, f, args in workloads(jnp, Rng(), add_at, bincount, unique):
        g = f if f is unique else jax.jit(f)
        report(impl, name, lambda: g(*args).block_until_ready(), lambda: None)


if __name__ == "__main__":
    for peer, run in (("cupy", run_cupy), ("jax", run_jax)):
        if ONLY in (None, peer):
            try:
                run()
            except ImportError as e:
                print(json.dumps({"impl": peer, "skipped": str(e)}), flush=True)
