#!/usr/bin/env python3
"""bench/host/numpy_suite.py — issue 36's host suite in NumPy, as its users write it.

The same programs as bench/host/host_programs.cc on the same closed-formula inputs, at 10^3 ..
10^7 elements. Prints one JSON line per program and size (the first call and the median of
warm calls that fit in --min-time seconds); --check DIR compares each result with
DIR/NAME-SIZE.npy written by `bench_host_suite --save DIR`. Run it with /usr/bin/python3
(Debian's NumPy beside the same OpenBLAS) and NPY_PROMOTION_STATE=weak.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

SIZES = [1000, 10000, 100000, 1000000, 10000000]


def wave(shape, seed, dtype=np.float64):
    count = int(np.prod(shape))
    k = np.arange(0, count, 1, dtype=np.float64)
    return np.sin(k * (0.37 + 0.11 * seed) + float(seed)).reshape(shape).astype(dtype)


def bins(n):
    return np.floor((wave((n,), 8) + 1.0) * 499.5).astype(np.int64)


def side(n):
    return max(2, int(round(math.sqrt(n))))


def one_f64(n): return [wave((n,), 1)]
def two_f64(n): return [wave((n,), 1), wave((n,), 2)]
def two_f32(n): return [wave((n,), 1, np.float32), wave((n,), 2, np.float32)]
def one_f32(n): return [wave((n,), 5, np.float32)]
def square_f32(n): return [wave((side(n), side(n)), 4, np.float32)]
def two_squares_f32(n):
    return [wave((side(n), side(n)), 3, np.float32), wave((side(n), side(n)), 4, np.float32)]
def square_and_vector_f64(n): return [wave((side(n), side(n)), 3), wave((side(n),), 4)]
def rows_of_256_f32(n): return [wave((max(1, n // 256), 256), 7, np.float32)]
def bins_and_weights(n): return [bins(n), wave((n,), 9)]
def four_f64(n): return [wave((n,), 12), wave((n,), 13), wave((n,), 14), wave((n,), 15)]
def system_f64(n):
    s = side(n)
    w = wave((s, s), 16)
    return [(w + w.T) * 0.5 + s * np.eye(s), wave((s,), 17)]


def chain_f64(x): return np.exp(-x * x) * np.sin(3.0 * x) + 0.5 * x
def poly_f64(x): return ((x * 0.3 + 1.2) * x - 0.7) * x + 2.0
def axpy_f32(x, y): return np.float32(2.5) * x + y
def where_f64(x): return np.where(x > 0.2, x * x, -x) + np.clip(x, -0.5, 0.5)
def stencil1d_f64(x): return x[:-2] - 2.0 * x[1:-1] + x[2:]
def stencil2d_f32(u):
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - np.float32(4.0) * u[1:-1, 1:-1]
def sum_f32(x): return x.sum()
def sum_rows_f32(x): return x.sum(axis=1)
def sum_columns_f32(x): return x.sum(axis=0)
def mean_std_f64(x): return np.array([x.mean(), x.std()])
def softmax_rows_f32(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
def dot_f64(x, y): return x @ y
def matmul_of(a, b): return a @ b
def bincount_weights(b, w): return np.bincount(b, weights=w, minlength=1000)
def histogram_f64(x): return np.histogram(x, 100, range=(-1.0, 1.0))[0]
def scatter_add(b, w):
    acc = np.zeros(1000)
    np.add.at(acc, b, w)
    return acc
def complex_f64(x, y, c0, _):
    z = x.astype(np.complex128) + 1j * y
    c = c0.astype(np.complex128) * (0.3 - 0.2j)
    w = z * z + c
    return np.abs(w * w + c)
def heat_loop_f64(_a, _b, _c, u0):
    u = u0 * 1.0
    for _ in range(20):
        u[1:-1] = u[1:-1] + 0.25 * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return u


ALL = 10000000
PROGRAMS = [
    ("chain_f64", ALL, one_f64, chain_f64),
    ("poly_f64", ALL, one_f64, poly_f64),
    ("axpy_f32", ALL, two_f32, axpy_f32),
    ("where_f64", ALL, one_f64, where_f64),
    ("stencil1d_f64", ALL, one_f64, stencil1d_f64),
    ("stencil2d_f32", ALL, square_f32, stencil2d_f32),
    ("sum_f32", ALL, one_f32, sum_f32),
    ("sum_rows_f32", ALL, square_f32, sum_rows_f32),
    ("sum_columns_f32", ALL, square_f32, sum_columns_f32),
    ("mean_std_f64", ALL, one_f64, mean_std_f64),
    ("softmax_rows_f32", ALL, rows_of_256_f32, softmax_rows_f32),
    ("dot_f64", ALL, two_f64, dot_f64),
    ("gemv_f64", ALL, square_and_vector_f64, matmul_of),
    ("gemm_f32", 1000000, two_squares_f32, matmul_of),
    ("bincount_weights", ALL, bins_and_weights, bincount_weights),
    ("histogram_f64", ALL, one_f64, histogram_f64),
    ("scatter_add", ALL, bins_and_weights, scatter_add),
    ("complex_f64", ALL, four_f64, complex_f64),
    ("heat_loop_f64", ALL, four_f64, heat_loop_f64),
    ("eigvals_f64", 100000, system_f64, lambda a, _: np.linalg.eigvals(a).astype(np.complex128)),
    ("cumsum_f64", ALL, one_f64, np.cumsum),
    ("sort_f32", ALL, one_f32, np.sort),
    ("median_rows_f64", ALL, square_and_vector_f64, lambda a, _: np.median(a, axis=1)),
    ("solve_f64", 1000000, system_f64, np.linalg.solve),
    ("inv_f64", 1000000, system_f64, lambda a, _: np.linalg.inv(a)),
    ("cholesky_f64", 1000000, system_f64, lambda a, _: np.linalg.cholesky(a)),
    ("slogdet_f64", 1000000, system_f64, lambda a, _: np.linalg.slogdet(a)[1]),
    ("eigvalsh_f64", 100000, system_f64, lambda a, _: np.linalg.eigvalsh(a)),
    ("svdvals_f64", 100000, system_f64, lambda a, _: np.linalg.svd(a, compute_uv=False)),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program")
    parser.add_argument("--max-elements", type=int, default=ALL)
    parser.add_argument("--min-time", type=float, default=0.3)
    parser.add_argument("--check", help="directory of bench_host_suite --save results")
    args = parser.parse_args()
    ok = True
    for name, largest, make, run in PROGRAMS:
        if args.program and name != args.program:
            continue
        for n in SIZES:
            if n > min(largest, args.max_elements):
                continue
            inputs = make(n)
            start = time.perf_counter()
            result = run(*inputs)
            cold = time.perf_counter() - start
            warm = []
            begin = time.perf_counter()
            while len(warm) < 5 or (time.perf_counter() - begin < args.min_time and len(warm) < 100000):
                start = time.perf_counter()
                result = run(*inputs)
                warm.append(time.perf_counter() - start)
            warm.sort()
            line = {"program": name, "impl": "numpy " + np.__version__, "elements": n,
                    "cold_s": cold, "warm_s": warm[len(warm) // 2], "calls": len(warm)}
            saved = os.path.join(args.check or "", f"{name}-{n}.npy")
            if args.check and os.path.exists(saved):
                got = np.load(saved)
                want = np.asarray(result)
                # float32 sums of hundreds of terms differ from NumPy's by their summation
                # order (relative to the largest result, up to ~n * 2^-24).
                tolerance = 1e-4 if want.dtype in (np.float32, np.complex64) else 1e-9
                scale = max(1e-300, float(np.max(np.abs(want))) if want.size else 1.0)
                error = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) / scale \
                    if want.size else 0.0
                line["max_rel_error"] = error
                line["matches_gpuc"] = got.shape == want.shape and error <= tolerance
                ok = ok and line["matches_gpuc"]
            print(json.dumps(line), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
