#!/usr/bin/env python3
"""bench/science/monte_carlo.cc's problem in NumPy, CuPy and JAX, as their users write it.

    python3 bench/science/monte_carlo_peers.py [--log2-paths P] [--batches B] [--only numpy]

A European call priced from 2^P float32 paths in B batches: normal draws, one GBM step to
maturity, the payoff's sum and sum of squares accumulated in float64. numpy / cupy: a Python
loop over batches with the library's generator (the draws are a stored array); jax: lax.fori_loop
over batches with jax.random.fold_in keys, under jax.jit. Median of 3; one JSON line each.
"""
import argparse
import json
import math
import time

import numpy as np

S0, K, R, SIGMA, T = 100.0, 105.0, 0.05, 0.2, 1.0


def report(impl, form, log2_paths, seconds, s1, s2, n):
    mean = s1 / n
    disc = math.exp(-R * T)
    print(json.dumps({"impl": impl, "form": form, "workload": f"monte_carlo_2^{log2_paths}_f32",
                      "ms": round(seconds * 1e3, 3), "paths_per_second": n / seconds,
                      "price": disc * mean,
                      "error": disc * math.sqrt((s2 / n - mean * mean) / n)}), flush=True)


def timed(run, repeat=3):
    run()
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2], out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log2-paths", type=int, default=28)
    p.add_argument("--batches", type=int, default=16)
    p.add_argument("--only")
    args = p.parse_args()
    n = 1 << args.log2_paths
    per = n // args.batches
    drift = (R - 0.5 * SIGMA * SIGMA) * T
    vol = SIGMA * math.sqrt(T)

    def loop(xp, normal):
        s1 = s2 = 0.0
        for _ in range(args.batches):
            z = normal(per)
            payoff = xp.maximum(S0 * xp.exp(drift + vol * z) - K, 0.0).astype(xp.float64)
            s1 = s1 + payoff.sum()
            s2 = s2 + (payoff * payoff).sum()
        return float(s1), float(s2)

    if args.only in (None, "numpy"):
        rng = np.random.default_rng(2)
        seconds, (s1, s2) = timed(lambda: loop(np, lambda m: rng.standard_normal(m, np.float32)))
        report("numpy " + np.__version__, "loop", args.log2_paths, seconds, s1, s2, n)
    if args.only in (None, "cupy"):
        try:
            import cupy as cp
            rng = cp.random.default_rng(2)
            seconds, (s1, s2) = timed(
                lambda: loop(cp, lambda m: rng.standard_normal(m, dtype=cp.float32)))
            report("cupy " + cp.__version__, "loop", args.log2_paths, seconds, s1, s2, n)
        except ImportError as e:
            print(json.dumps({"impl": "cupy", "skipped": str(e)}), flush=True)
    if args.only in (None, "jax"):
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)
            key = jax.random.PRNGKey(2)

            def body(i, sums):
                z = jax.random.normal(jax.random.fold_in(key, i), (per,), jnp.float32)
                payoff = jnp.maximum(S0 * jnp.exp(drift + vol * z) - K, 0.0).astype(jnp.float64)
                return sums[0] + payoff.sum(), sums[1] + (payoff * payoff).sum()

            run = jax.jit(lambda: jax.lax.fori_loop(0, args.batches, body,
                                                    (jnp.float64(0), jnp.float64(0))))
            seconds, (s1, s2) = timed(lambda: [float(v) for v in run()])
            report("jax " + jax.__version__, "fori_loop", args.log2_paths, seconds, s1, s2, n)
        except ImportError as e:
            print(json.dumps({"impl": "jax", "skipped": str(e)}), flush=True)


if __name__ == "__main__":
    main()
