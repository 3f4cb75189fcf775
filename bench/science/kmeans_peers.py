#!/usr/bin/env python3
"""bench/science/kmeans.cc's problem in NumPy, CuPy and JAX, as their users write it.

    python3 bench/science/kmeans_peers.py [--log2-points P] [--dims D] [--k K] [--iterations I]
                                           [--only numpy]

Lloyd iterations over 2^P normal float32 points: distances, argmin, np.add.at sums (cupyx's
scatter_add for CuPy, .at[].add for JAX under jax.jit in lax.fori_loop), bincount counts.
Median of 3, synchronized; one JSON line each, as kmeans.cc's.
"""
import argparse
import json
import time

import numpy as np


def iteration(xp, add_at, x, c):
    d = ((x[:, None, :] - c[None, :, :]) ** 2).sum(-1)
    labels = d.argmin(1)
    sums = add_at(xp.zeros_like(c), labels, x)
    # JAX needs the bin count as a static `length` (under jit the labels are traced).
    counts = (xp.bincount(labels, length=c.shape[0]) if xp.__name__.startswith("jax")
              else xp.bincount(labels, minlength=c.shape[0]))
    return sums / xp.maximum(counts, 1)[:, None].astype(c.dtype)


def timed(run, sync, repeat=3):
    run()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log2-points", type=int, default=22)
    p.add_argument("--dims", type=int, default=16)
    p.add_argument("--k", type=int, default=64)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--only")
    args = p.parse_args()
    n, its = 1 << args.log2_points, args.iterations
    x0 = np.random.default_rng(13).normal(0.0, 1.0, (n, args.dims)).astype(np.float32)
    name = f"kmeans_2^{args.log2_points}_x{args.dims}_k{args.k}_f32"

    def report(impl, form, seconds):
        print(json.dumps({"impl": impl, "form": form, "workload": name,
                          "ms_per_iteration": round(seconds * 1e3 / its, 4)}), flush=True)

    def loop(xp, add_at, x):
        c = x[:args.k].copy()
        for _ in range(its):
            c = iteration(xp, add_at, x, c)
        return c

    if args.only in (None, "numpy"):
        def np_add_at(a, i, v):
            np.add.at(a, i, v)
            return a
        report("numpy " + np.__version__, "loop", timed(lambda: loop(np, np_add_at, x0),
                                                         lambda: None))
    if args.only in (None, "cupy"):
        try:
            import cupy as cp
            import cupyx

            def cp_add_at(a, i, v):
                cupyx.scatter_add(a, i, v)
                return a
            x = cp.asarray(x0)
            report("cupy " + cp.__version__, "loop",
                   timed(lambda: loop(cp, cp_add_at, x), cp.cuda.Device().synchronize))
        except ImportError as e:
            print(json.dumps({"impl": "cupy", "skipped": str(e)}), flush=True)
    if args.only in (None, "jax"):
        try:
            import jax
            import jax.numpy as jnp
            x = jnp.asarray(x0)
            run = jax.jit(lambda c: jax.lax.fori_loop(
                0, its, lambda _, c: iteration(jnp, lambda a, i, v: a.at[i].add(v), x, c), c))
            c0 = x[:args.k]
            report("jax " + jax.__version__, "fori_loop",
                   timed(lambda: run(c0).block_until_ready(), lambda: None))
        except ImportError as e:
            print(json.dumps({"impl": "jax", "skipped": str(e)}), flush=True)


if __name__ == "__main__":
    main()
