#!/usr/bin/env python3
"""bench/solvers/scipy_solvers.py — bench_solvers' problems in SciPy (cg, bicgstab, gmres).

The 5-point Poisson matrix of a side x side grid (bicgstab: with a convection term), b =
sin(0.37 k + 1), rtol 1e-8, as bench/solvers/solvers_main.cc. One JSON line per (solver, side):
iterations (counted by the callback), the cold first call, the median warm call, the relative
residual. SciPy before 1.12 calls rtol `tol`.
"""
import argparse
import inspect
import json
import time

import numpy as np
import scipy
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def poisson(side, convection):
    n = side * side
    main = np.full(n, 4.0 + convection)
    west = np.full(n - 1, -1.0 - convection)
    east = np.full(n - 1, -1.0)
    west[side - 1::side] = 0.0  # no coupling across a row's end
    east[side - 1::side] = 0.0
    vertical = np.full(n - side, -1.0)
    return sp.diags([main, west, east, vertical, vertical], [0, -1, 1, -side, side], format="csr")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for name in ("cg", "bicgstab", "gmres", "minres", "spsolve"):
        solver = getattr(spla, name)
        key = "rtol" if "rtol" in inspect.signature(solver).parameters else "tol"
        # gmres: restart 20 and one callback per Arnoldi step (the residual-norm kind)
        extra = {"restart": 20, "callback_type": "pr_norm"} if name == "gmres" else {}
        for side in (64, 256):
            if name == "gmres" and side > 64:
                continue
            a = poisson(side, 0.0 if name in ("cg", "minres", "spsolve") else 0.5)
            b = np.sin(np.arange(side * side) * 0.37 + 1.0)
            count = [0]

            def callback(_):
                count[0] += 1

            def run():
                count[0] = 0
                if name == "spsolve":  # direct: no iterations, info 0
                    return solver(a, b), 0
                if name == "minres":  # no atol; its own relative stopping test
                    return solver(a, b, maxiter=20000, callback=callback, **{key: 1e-8})
                return solver(a, b, atol=0.0, maxiter=20000, callback=callback, **{key: 1e-8},
                              **extra)

            start = time.perf_counter()
            x, info = run()
            cold = time.perf_counter() - start
            iterations = count[0]
            warm = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                run()
                warm.append(time.perf_counter() - start)
            residual = np.linalg.norm(b - a @ x) / np.linalg.norm(b)
            print(json.dumps({"solver": name, "impl": "scipy " + scipy.__version__, "side": side,
                              "iterations": iterations, "info": int(info), "cold_s": cold,
                              "warm_s": sorted(warm)[len(warm) // 2],
                              "relative_residual": float(residual)}), flush=True)


if __name__ == "__main__":
    main()
