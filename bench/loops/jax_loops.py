#!/usr/bin/env python3
"""bench/loops/jax_loops.py — issue 31's loop programs in JAX, as its users write them.

The programs of bench/loops/numpy_loops.py (same closed-formula inputs, float64), each one
jitted function whose loop is `lax.fori_loop` (JAX traces the loop once and runs it on the
device): slice writes as `.at[].set`, a loop-dependent row or window as a dynamic index or
`lax.dynamic_slice`, and covariance's shrinking slices (a shape that changes every iteration,
which a traced loop cannot have) as a mask over the whole row. Prints one JSON line per
program: the cold first call (tracing and XLA compilation included) and the median of
--repeat warm calls; --check DIR compares each result with DIR/NAME.npy from
`bench_loops --save DIR`. Runs on the GPU machine.
"""
import argparse
import json
import math
import sys
import time

import jax

jax.config.update("jax_enable_x64", True)  # the programs are float64, as NumPy's

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

from numpy_loops import check_against_gpuc  # noqa: E402 (beside this file)


def wave(shape, seed):
    k = jnp.arange(math.prod(shape), dtype=jnp.float64)
    return jnp.sin(k * (0.37 + 0.11 * seed) + float(seed)).reshape(shape)


def covariance(m, _):
    n = m
    data = wave((n, m), 1)
    data = data - data.mean(axis=0)
    columns = jnp.arange(m)

    def body(i, cov):
        row = data[:, i] @ data / (n - 1.0)
        keep = columns >= i
        cov = cov.at[i, :].set(jnp.where(keep, row, cov[i, :]))
        return cov.at[:, i].set(jnp.where(keep, row, cov[:, i]))

    return lax.fori_loop(0, m, body, jnp.zeros((m, m)))


def thomas(n, nz):
    a = -1.0 + 0.1 * wave((nz, n, n), 2)
    b = 4.0 + wave((nz, n, n), 3)
    c = -1.0 + 0.1 * wave((nz, n, n), 4)
    d = wave((nz, n, n), 5)
    cp = jnp.zeros((nz, n, n)).at[0].set(c[0] / b[0])
    dp = jnp.zeros((nz, n, n)).at[0].set(d[0] / b[0])

    def forward(k, state):
        cp, dp = state
        denom = b[k] - a[k] * cp[k - 1]
        return cp.at[k].set(c[k] / denom), dp.at[k].set((d[k] - a[k] * dp[k - 1]) / denom)

    cp, dp = lax.fori_loop(1, nz, forward, (cp, dp))

    def backward(j, x):
        k = nz - 2 - j
        return x.at[k].set(dp[k] - cp[k] * x[k + 1])

    x = jnp.zeros((nz, n, n)).at[nz - 1].set(dp[nz - 1])
    return lax.fori_loop(0, nz - 1, backward, x)


def stencil1d(n, steps):
    dt = 0.4 / steps

    def body(t, u):
        u = u.at[0].set(jnp.sin(0.05 * t))
        return u.at[1:-1].set(u[1:-1] + dt * t * (u[:-2] - 2.0 * u[1:-1] + u[2:]))

    return lax.fori_loop(0, steps, body, wave((n,), 6))


def stencil2d(n, steps):
    dt = 0.2 / steps

    def body(t, u):
        u = u.at[0].set(jnp.sin(0.05 * t))
        return u.at[1:-1, 1:-1].set(u[1:-1, 1:-1] + dt * t * (
            u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]))

    return lax.fori_loop(0, steps, body, wave((n, n), 7))


def nbody(n, steps):
    mass = 1.0 + 0.5 * wave((n,), 10)
    dt, eps2 = 0.001, 0.01

    def body(t, state):
        pos, vel, energy = state
        d = pos[None, :, :] - pos[:, None, :]
        r2 = (d * d).sum(-1) + eps2
        inv3 = r2 ** -1.5
        acc = (d * (inv3 * mass[None, :])[:, :, None]).sum(1)
        vel = vel + dt * acc
        pos = pos + dt * vel
        kinetic = 0.5 * (mass * (vel * vel).sum(1)).sum()
        potential = -0.5 * (mass[:, None] * mass[None, :] / jnp.sqrt(r2)).sum()
        return pos, vel, energy.at[t].set(kinetic + potential)

    state = (wave((n, 3), 8), 0.1 * wave((n, 3), 9), jnp.zeros(steps))
    return lax.fori_loop(0, steps, body, state)[2]


def mandelbrot(n, iterations):
    cr = jnp.broadcast_to(jnp.linspace(-2.0, 0.6, n)[None, :], (n, n))
    ci = jnp.broadcast_to(jnp.linspace(-1.2, 1.2, n)[:, None], (n, n))

    def body(i, state):
        zr, zi, counts = state
        next_r = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = next_r
        escaped = (zr * zr + zi * zi > 4.0) & (counts == iterations)
        counts = jnp.where(escaped, i, counts)
        return jnp.where(escaped, 0.0, zr), jnp.where(escaped, 0.0, zi), counts

    state = (jnp.zeros((n, n)), jnp.zeros((n, n)), jnp.full((n, n), iterations, dtype=jnp.int64))
    return lax.fori_loop(0, iterations, body, state)[2]


def convolution(n, _):
    k = 5
    image = wave((n, n), 11)
    weights = wave((k, k), 12)
    out_n = n - k + 1

    def body(at, out):
        i, j = at // out_n, at % out_n
        return out.at[i, j].set((lax.dynamic_slice(image, (i, j), (k, k)) * weights).sum())

    return lax.fori_loop(0, out_n * out_n, body, jnp.zeros((out_n, out_n)))


PROGRAMS = [  # name, function, size, iterations (bench/loops/loop_programs.cc)
    ("covariance", covariance, 256, 256),
    ("thomas", thomas, 128, 64),
    ("stencil1d", stencil1d, 65536, 500),
    ("stencil2d", stencil2d, 256, 200),
    ("nbody", nbody, 256, 50),
    ("mandelbrot", mandelbrot, 256, 64),
    ("convolution", convolution, 40, 1),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--check", metavar="DIR")
    args = parser.parse_args()
    failed = False
    for name, fn, size, iterations in PROGRAMS:
        if args.program and name != args.program:
            continue
        program = jax.jit(fn, static_argnums=(0, 1))
        start = time.perf_counter()
        result = program(size, iterations).block_until_ready()
        cold = time.perf_counter() - start
        warm = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            program(size, iterations).block_until_ready()
            warm.append(time.perf_counter() - start)
        result = np.asarray(result)
        line = {"program": name, "impl": "jax " + jax.__version__, "size": size,
                "iterations": iterations, "cold_s": cold, "warm_s": sorted(warm)[len(warm) // 2]}
        if args.check:
            failed = not check_against_gpuc(args.check, name, result, line) or failed
        print(json.dumps(line), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
