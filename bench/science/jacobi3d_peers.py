#!/usr/bin/env python3
"""bench/science/jacobi3d.cc's problem in NumPy, CuPy and JAX, as their users write it.

    python3 bench/science/jacobi3d_peers.py [--n N] [--steps S] [--dtype f32|f64] [--only numpy]

7-point Jacobi relaxation of an N^3 field (a hot first face), S steps:
- numpy / cupy: u[1:-1, 1:-1, 1:-1] = (six shifted slices) / 6 in a Python loop;
- jax: the same step with .at[].set under jax.jit inside lax.fori_loop.
Each is timed as the median of 3 runs, synchronized; one JSON line each, as jacobi3d.cc's.
"""
import argparse
import json
import time

import numpy as np


def step(u):
    u[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] +
                           u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0
    return u


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


def report(impl, form, n, dtype, steps, seconds):
    item = 4 if dtype == np.float32 else 8
    ms = seconds * 1e3 / steps
    print(json.dumps({"impl": impl, "form": form,
                      "workload": f"jacobi3d_{n}_{'f32' if item == 4 else 'f64'}",
                      "ms_per_step": round(ms, 5),
                      "gbps_min_bytes": round(2.0 * n ** 3 * item / (ms * 1e6), 1)}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--dtype", default="f32")
    p.add_argument("--only")
    args = p.parse_args()
    n, steps = args.n, args.steps
    dtype = np.float32 if args.dtype == "f32" else np.float64
    u0 = np.random.default_rng(9).uniform(0.0, 1.0, (n, n, n)).astype(dtype)
    u0[0] = 1.0

    def loop(u):
        for _ in range(steps):
            step(u)
        return u

    if args.only in (None, "numpy"):
        report("numpy " + np.__version__, "loop", n, dtype, steps,
               timed(lambda: loop(u0.copy()), lambda: None))
    if args.only in (None, "cupy"):
        try:
            import cupy as cp
            d = cp.asarray(u0)
            report("cupy " + cp.__version__, "loop", n, dtype, steps,
                   timed(lambda: loop(d.copy()), cp.cuda.Device().synchronize))
        except ImportError as e:
            print(json.dumps({"impl": "cupy", "skipped": str(e)}), flush=True)
    if args.only in (None, "jax"):
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", dtype == np.float64)

            def jstep(_, u):
                return u.at[1:-1, 1:-1, 1:-1].set(
                    (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] +
                     u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0)

            run = jax.jit(lambda u: jax.lax.fori_loop(0, steps, jstep, u))
            ju = jnp.asarray(u0)
            report("jax " + jax.__version__, "fori_loop", n, dtype, steps,
                   timed(lambda: run(ju).block_until_ready(), lambda: None))
        except ImportError as e:
            print(json.dumps({"impl": "jax", "skipped": str(e)}), flush=True)


if __name__ == "__main__":
    main()
