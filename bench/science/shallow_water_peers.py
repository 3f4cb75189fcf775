#!/usr/bin/env python3
"""bench/science/shallow_water.cc's problem in NumPy, CuPy and JAX, as their users write it.

    python3 bench/science/shallow_water_peers.py [--n N] [--steps S] [--only numpy]

Lax-Friedrichs steps of the 2-D shallow-water equations (float64) with reflective boundaries
from a Gaussian bump at rest. numpy / cupy: the step in a Python loop (copies and slice
assignments); jax: the same step with .at[].set under jax.jit in lax.fori_loop. Median of 3
runs, synchronized; one JSON line each, as shallow_water.cc's.
"""
import argparse
import json
import time

import numpy as np

G = 9.81


def make_step(xp, c, functional):
    def lax_friedrichs(u, f, gg):
        interior = (0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]) -
                    c * (f[2:, 1:-1] - f[:-2, 1:-1]) - c * (gg[1:-1, 2:] - gg[1:-1, :-2]))
        if functional:
            return u.at[1:-1, 1:-1].set(interior)
        out = u.copy()
        out[1:-1, 1:-1] = interior
        return out

    def reflect(u, a, b):
        if functional:
            u = u.at[0].set(a * u[1]).at[-1].set(a * u[-2])
            return u.at[:, 0].set(b * u[:, 1]).at[:, -1].set(b * u[:, -2])
        u[0] = a * u[1]
        u[-1] = a * u[-2]
        u[:, 0] = b * u[:, 1]
        u[:, -1] = b * u[:, -2]
        return u

    def step(h, hu, hv):
        uv = hu * hv / h
        p = 0.5 * G * h * h
        h, hu, hv = (lax_friedrichs(h, hu, hv), lax_friedrichs(hu, hu * hu / h + p, uv),
                     lax_friedrichs(hv, uv, hv * hv / h + p))
        return reflect(h, 1.0, 1.0), reflect(hu, -1.0, 1.0), reflect(hv, 1.0, -1.0)

    return step


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


def report(impl, form, n, steps, seconds):
    ms = seconds * 1e3 / steps
    print(json.dumps({"impl": impl, "form": form, "workload": f"shallow_water_{n}_f64",
                      "ms_per_step": round(ms, 5),
                      "gbps_min_bytes": round(2.0 * 3 * n * n * 8 / (ms * 1e6), 1)}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--only")
    args = p.parse_args()
    n, steps = args.n, args.steps
    dx = 1.0 / n
    c = (0.2 * dx / np.sqrt(G * 1.1)) / (2.0 * dx)
    x = (np.arange(n, dtype=np.float64) + 0.5) / n
    dx2 = (x - 0.5) ** 2
    h0 = 1.0 + 0.1 * np.exp(-(dx2[:, None] + dx2[None, :]) / 0.01)

    def loop(xp, step):
        h, hu, hv = xp.asarray(h0), xp.zeros((n, n)), xp.zeros((n, n))
        for _ in range(steps):
            h, hu, hv = step(h, hu, hv)
        return h

    if args.only in (None, "numpy"):
        report("numpy " + np.__version__, "loop", n, steps,
               timed(lambda: loop(np, make_step(np, c, False)), lambda: None))
    if args.only in (None, "cupy"):
        try:
            import cupy as cp
            report("cupy " + cp.__version__, "loop", n, steps,
                   timed(lambda: loop(cp, make_step(cp, c, False)),
                         cp.cuda.Device().synchronize))
        except ImportError as e:
            print(json.dumps({"impl": "cupy", "skipped": str(e)}), flush=True)
    if args.only in (None, "jax"):
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)
            step = make_step(jnp, c, True)
            run = jax.jit(lambda s: jax.lax.fori_loop(0, steps, lambda _, s: step(*s), s))
            s0 = (jnp.asarray(h0), jnp.zeros((n, n)), jnp.zeros((n, n)))
            report("jax " + jax.__version__, "fori_loop", n, steps,
                   timed(lambda: run(s0)[0].block_until_ready(), lambda: None))
        except ImportError as e:
            print(json.dumps({"impl": "jax", "skipped": str(e)}), flush=True)


if __name__ == "__main__":
    main()
