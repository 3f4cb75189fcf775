#!/usr/bin/env python3
"""bench/loops/numpy_loops.py — issue 31's loop programs in NumPy (or CuPy), as their users write them.

The same programs as bench/loops/loop_programs.cc, on the same closed-formula inputs. Prints
one JSON line per program (the cold first call and the median of --repeat warm calls);
--check DIR compares each result with DIR/NAME.npy written by `bench_loops --save DIR`.
Run it with /usr/bin/python3 (Debian's NumPy beside the same OpenBLAS). --module cupy runs
the same code on CuPy (the GPU machine), synchronizing the device before each clock reading.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

# The array module the programs run on: NumPy, or CuPy (--module cupy), whose users write
# the same code with `cp.` for `np.`.
xp = np


_WAVES = {}


def wave(shape, seed):
    """Made once per shape and seed (as loop_programs.cc keeps its inputs); a copy each call,
    since the programs write into their arrays."""
    if (shape, seed) not in _WAVES:
        count = math.prod(shape)
        k = xp.arange(0, count, 1, dtype=xp.float64)
        _WAVES[(shape, seed)] = xp.sin(k * (0.37 + 0.11 * seed) + float(seed)).reshape(shape)
    return _WAVES[(shape, seed)].copy()


def covariance(m, _):
    n = m
    data = wave((n, m), 1)
    data = data - data.mean(axis=0)
    cov = xp.zeros((m, m))
    for i in range(m):
        row = data[:, i] @ data[:, i:] / (n - 1.0)
        cov[i, i:] = row
        cov[i:, i] = row
    return cov


def thomas(n, nz):
    a = -1.0 + 0.1 * wave((nz, n, n), 2)
    b = 4.0 + wave((nz, n, n), 3)
    c = -1.0 + 0.1 * wave((nz, n, n), 4)
    d = wave((nz, n, n), 5)
    cp = xp.empty((nz, n, n))
    dp = xp.empty((nz, n, n))
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for k in range(1, nz):
        denom = b[k] - a[k] * cp[k - 1]
        cp[k] = c[k] / denom
        dp[k] = (d[k] - a[k] * dp[k - 1]) / denom
    x = xp.empty((nz, n, n))
    x[nz - 1] = dp[nz - 1]
    for k in range(nz - 2, -1, -1):
        x[k] = dp[k] - cp[k] * x[k + 1]
    return x


def stencil1d(n, steps):
    u = wave((n,), 6)
    dt = 0.4 / steps
    for t in range(steps):
        u[0] = xp.sin(0.05 * t)
        u[1:-1] = u[1:-1] + dt * t * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return u


def stencil2d(n, steps):
    u = wave((n, n), 7)
    dt = 0.2 / steps
    for t in range(steps):
        u[0] = xp.sin(0.05 * t)
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + dt * t * (
            u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return u


def nbody(n, steps):
    pos = wave((n, 3), 8)
    vel = 0.1 * wave((n, 3), 9)
    mass = 1.0 + 0.5 * wave((n,), 10)
    energy = xp.zeros(steps)
    dt, eps2 = 0.001, 0.01
    for t in range(steps):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = (d * d).sum(-1) + eps2
        inv3 = r2 ** -1.5
        acc = (d * (inv3 * mass[None, :])[:, :, None]).sum(1)
        vel = vel + dt * acc
        pos = pos + dt * vel
        kinetic = 0.5 * (mass * (vel * vel).sum(1)).sum()
        potential = -0.5 * (mass[:, None] * mass[None, :] / xp.sqrt(r2)).sum()
        energy[t] = kinetic + potential
    return energy


def mandelbrot(n, iterations):
    x = xp.linspace(-2.0, 0.6, n)
    y = xp.linspace(-1.2, 1.2, n)
    cr = xp.broadcast_to(x[None, :], (n, n))
    ci = xp.broadcast_to(y[:, None], (n, n))
    zr = xp.zeros((n, n))
    zi = xp.zeros((n, n))
    counts = xp.full((n, n), iterations, dtype=xp.int64)
    for i in range(iterations):
        next_r = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = next_r
        escaped = (zr * zr + zi * zi > 4.0) & (counts == iterations)
        counts[escaped] = i
        zr = xp.where(escaped, 0.0, zr)
        zi = xp.where(escaped, 0.0, zi)
    return counts


def convolution(n, _):
    k = 5
    image = wave((n, n), 11)
    weights = wave((k, k), 12)
    out_n = n - k + 1
    out = xp.zeros((out_n, out_n))
    for i in range(out_n):
        for j in range(out_n):
            out[i, j] = (image[i:i + k, j:j + k] * weights).sum()
    return out


PROGRAMS = [  # name, function, size, iterations (bench/loops/loop_programs.cc)
    ("covariance", covariance, 256, 256),
    ("thomas", thomas, 128, 64),
    ("stencil1d", stencil1d, 65536, 500),
    ("stencil2d", stencil2d, 256, 200),
    ("nbody", nbody, 256, 50),
    ("mandelbrot", mandelbrot, 256, 64),
    ("convolution", convolution, 40, 1),
    # gpuc's fori_loop forms of the same programs: NumPy's loop is the same loop.
    ("thomas.fori", thomas, 128, 64),
    ("stencil1d.fori", stencil1d, 65536, 500),
    ("stencil2d.fori", stencil2d, 256, 200),
    ("nbody.fori", nbody, 256, 50),
    ("mandelbrot.fori", mandelbrot, 256, 64),
]


def check_against_gpuc(directory, name, result, line):
    """Compares `result` with DIRECTORY/NAME.npy from `bench_loops --save`, adding the error
    (max_rel_error, or mismatches for integers) and matches_gpuc to `line`; True when they
    match (to 1e-9 relative)."""
    got = np.load(os.path.join(directory, name + ".npy"))
    if got.dtype.kind == "f":
        err = float(np.max(np.abs(got - result)) / max(1.0, np.max(np.abs(result))))
        line["max_rel_error"] = err
        ok = err <= 1e-9
    else:
        line["mismatches"] = int(np.sum(got != result))
        ok = line["mismatches"] == 0
    line["matches_gpuc"] = ok
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--check", metavar="DIR")
    parser.add_argument("--module", choices=["numpy", "cupy"], default="numpy")
    args = parser.parse_args()
    global xp
    sync = lambda: None  # noqa: E731
    impl = "numpy " + np.__version__
    if args.module == "cupy":
        import cupy
        xp = cupy
        sync = cupy.cuda.Device().synchronize
        impl = "cupy " + cupy.__version__
    failed = False
    for name, fn, size, iterations in PROGRAMS:
        if args.program and name != args.program:
            continue
        sync()
        start = time.perf_counter()
        result = fn(size, iterations)
        sync()
        cold = time.perf_counter() - start
        warm = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            fn(size, iterations)
            sync()
            warm.append(time.perf_counter() - start)
        if xp is not np:
            result = xp.asnumpy(result)
        line = {"program": name, "impl": impl, "size": size,
                "iterations": iterations, "cold_s": cold, "warm_s": sorted(warm)[len(warm) // 2]}
        if args.check:
            failed = not check_against_gpuc(args.check, name, result, line) or failed
        print(json.dumps(line), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    with np.errstate(over="ignore", invalid="ignore"):
        sys.exit(main())
