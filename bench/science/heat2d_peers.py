#!/usr/bin/env python3
"""CuPy and JAX on bench/science/heat2d.cc's problem, as their users write it, in the same run.

    python3 bench/science/heat2d_peers.py [--n N] [--steps S]

CuPy: the NumPy code with cp (each slice expression its own kernel). JAX: the step under
jax.jit inside lax.fori_loop (XLA fuses the step and updates in place). Each is first checked
against NumPy on a 40x40 grid, then timed over S steps on an N x N float64 grid (median of 3
runs, synchronized). One JSON line per implementation, as bench_gpu's.
"""
import argparse
import json
import time

import numpy as np

R = 0.2


def numpy_steps(u, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + R * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                                             u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return u


def report(impl, n, ms, bytes_per_step, **extra):
    line = {"impl": impl, "workload": f"heat2d_{n}_f64", "ms_per_step": round(ms, 5),
            "gbps_min_bytes": round(bytes_per_step / (ms * 1e6), 1)}
    line.update(extra)
    print(json.dumps(line), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--steps", type=int, default=200)
    args = p.parse_args()
    n, steps = args.n, args.steps
    rng = np.random.default_rng(5)
    small = rng.uniform(0.0, 0.5, (40, 40))
    small[0] = 1.0
    want = numpy_steps(small, 50)
    bytes_per_step = 2.0 * n * n * 8

    try:
        import cupy as cp

        def cupy_steps(u, count):
            for _ in range(count):
                u[1:-1, 1:-1] = u[1:-1, 1:-1] + R * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                                                     u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
            return u

        got = cp.asnumpy(cupy_steps(cp.asarray(small), 50))
        assert np.max(np.abs(got - want)) < 1e-12, "cupy differs from numpy"
        u = cp.asarray(rng.uniform(0.0, 0.5, (n, n)))
        u[0] = 1.0
        cupy_steps(u, 3)
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            cupy_steps(u, steps)
            cp.cuda.Device().synchronize()
            times.append((time.perf_counter() - t0) * 1e3 / steps)
        report("cupy", n, sorted(times)[1], bytes_per_step)
    except ImportError as e:
        print(json.dumps({"impl": "cupy", "skipped": str(e)}))

    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        def step(_, u):
            interior = u[1:-1, 1:-1] + R * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                                            u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
            return u.at[1:-1, 1:-1].set(interior)

        run = jax.jit(lambda u, count: jax.lax.fori_loop(0, count, step, u),
                      static_argnums=1, donate_argnums=0)
        got = np.asarray(run(jnp.asarray(small), 50))
        assert np.max(np.abs(got - want)) < 1e-12, "jax differs from numpy"
        u = jnp.asarray(rng.uniform(0.0, 0.5, (n, n))).at[0].set(1.0)
        u = run(u, steps).block_until_ready()  # compile for this count
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            u = run(u, steps).block_until_ready()
            times.append((time.perf_counter() - t0) * 1e3 / steps)
        report("jax", n, sorted(times)[1], bytes_per_step)
    except ImportError as e:
        print(json.dumps({"impl": "jax", "skipped": str(e)}))


if __name__ == "__main__":
    main()
