#!/usr/bin/env python3
"""bench/science/nbody.cc's problem in NumPy, CuPy and JAX, as their users write it.

    python3 bench/science/nbody_peers.py [--n N] [--steps S] [--only numpy]

All-pairs softened gravity, symplectic Euler, float32. numpy / cupy: the broadcast pair
arrays in blocks of rows (the whole [n, n, 3] at n = 32768 is 12.9 GB); jax: the unblocked
step under jax.jit in lax.fori_loop (XLA fuses the pair arrays). Median of 3; JSON lines.
"""
import argparse
import json
import time

import numpy as np

DT, EPS2 = 1e-3, 1e-2


def step(xp, pos, vel, m, block):
    acc = xp.empty_like(pos)
    for lo in range(0, pos.shape[0], block):
        d = pos[None, :, :] - pos[lo:lo + block, None, :]
        r2 = (d * d).sum(-1) + EPS2
        weight = m[None, :] / (r2 * xp.sqrt(r2))
        acc[lo:lo + block] = (d * weight[:, :, None]).sum(1)
    vel = vel + DT * acc
    return pos + DT * vel, vel


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
    p.add_argument("--n", type=int, default=32768)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--only")
    args = p.parse_args()
    n, steps = args.n, args.steps
    rng = np.random.default_rng(17)
    m = rng.uniform(0.5, 1.5, n).astype(np.float32)
    pos0 = rng.normal(0.0, 1.0, (n, 3)).astype(np.float32)
    vel0 = rng.normal(0.0, 0.1, (n, 3)).astype(np.float32)
    block = max(1, min(n, (1 << 26) // (3 * n)))  # about 256 MB of pair temporaries a block

    def report(impl, form, seconds):
        ms = seconds * 1e3 / steps
        print(json.dumps({"impl": impl, "form": form, "workload": f"nbody_{n}_f32",
                          "ms_per_step": round(ms, 4),
                          "interactions_per_second": n * n / (ms * 1e-3)}), flush=True)

    def loop(xp, pos, vel, mm):
        for _ in range(steps):
            pos, vel = step(xp, pos, vel, mm, block)
        return pos

    if args.only in (None, "numpy"):
        report("numpy " + np.__version__, "loop", timed(lambda: loop(np, pos0, vel0, m),
                                                         lambda: None))
    if args.only in (None, "cupy"):
        try:
            import cupy as cp
            a, b, c = cp.asarray(pos0), cp.asarray(vel0), cp.asarray(m)
            report("cupy " + cp.__version__, "loop",
                   timed(lambda: loop(cp, a, b, c), cp.cuda.Device().synchronize))
        except ImportError as e:
            print(json.dumps({"impl": "cupy", "skipped": str(e)}), flush=True)
    if args.only in (None, "jax"):
        try:
            import jax
            import jax.numpy as jnp
            jm = jnp.asarray(m)

            def body(_, s):
                pos, vel = s
                d = pos[None, :, :] - pos[:, None, :]
                r2 = (d * d).sum(-1) + EPS2
                acc = (d * (jm[None, :] / (r2 * jnp.sqrt(r2)))[:, :, None]).sum(1)
                vel = vel + DT * acc
                return pos + DT * vel, vel

            run = jax.jit(lambda s: jax.lax.fori_loop(0, steps, body, s))
            s0 = (jnp.asarray(pos0), jnp.asarray(vel0))
            report("jax " + jax.__version__, "fori_loop",
                   timed(lambda: run(s0)[0].block_until_ready(), lambda: None))
        except ImportError as e:
            print(json.dumps({"impl": "jax", "skipped": str(e)}), flush=True)


if __name__ == "__main__":
    main()
