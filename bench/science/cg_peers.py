#!/usr/bin/env python3
"""bench/science/cg.cc's problem in NumPy/SciPy, CuPy and JAX, as their users write it.

    python3 bench/science/cg_peers.py [--n N] [--iterations K] [--dtype f32|f64] [--only numpy]

The 5-point Poisson matrix of an N x N grid as CSR, unpreconditioned CG from x0 = 0 for K
iterations (no stopping test, so every implementation does the same work):
- numpy: scipy.sparse's CSR product and NumPy vector updates, the CG loop in Python;
- cupy: the same loop with cupyx.scipy.sparse (as cupyx.scipy.sparse.linalg.cg runs it),
  and cupyx's cg itself with maxiter=K and tol=0;
- jax: jax.scipy.sparse.linalg.cg with a BCOO matrix's matvec and maxiter=K, tol=0 (a
  lax.while_loop on the device), under jax.jit.
Each is timed as the median of 3 runs, synchronized; one JSON line each, as cg.cc's.
"""
import argparse
import inspect
import json
import time

import numpy as np


def poisson(n, dtype):
    import scipy.sparse as sp
    lap1 = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    return (sp.kron(sp.identity(n), lap1) + sp.kron(lap1, sp.identity(n))).tocsr().astype(dtype)


def cg_loop(xp, a, b, iterations):
    x = xp.zeros_like(b)
    r = b.copy()
    p = b.copy()
    rr = r @ r
    for _ in range(iterations):
        ap = a @ p
        alpha = rr / (p @ ap)
        x = x + alpha * p
        r = r - alpha * ap
        rr_next = r @ r
        p = r + (rr_next / rr) * p
        rr = rr_next
    return x, rr


def timed(run, sync, repeat=3):
    run()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        sync()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2], out


def report(impl, form, n, dtype, iterations, seconds, residual):
    print(json.dumps({"impl": impl, "form": form,
                      "workload": f"cg_poisson_{n}_{'f32' if dtype == np.float32 else 'f64'}",
                      "ms_per_iteration": round(seconds * 1e3 / iterations, 5),
                      "residual": float(residual)}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=2048)
    p.add_argument("--iterations", type=int, default=100)
    p.add_argument("--dtype", default="f32")
    p.add_argument("--only")
    args = p.parse_args()
    n, k = args.n, args.iterations
    dtype = np.float32 if args.dtype == "f32" else np.float64
    b = np.random.default_rng(7).uniform(0.0, 1.0, n * n).astype(dtype)
    a = poisson(n, dtype)
    if args.only in (None, "numpy"):
        seconds, (x, rr) = timed(lambda: cg_loop(np, a, b, k), lambda: None)
        report("numpy " + np.__version__, "loop", n, dtype, k, seconds, np.sqrt(rr))
    if args.only in (None, "cupy"):
        try:
            import cupy as cp
            import cupyx.scipy.sparse as csp
            import cupyx.scipy.sparse.linalg as cla
            da, db = csp.csr_matrix(a), cp.asarray(b)
            sync = cp.cuda.Device().synchronize
            seconds, (x, rr) = timed(lambda: cg_loop(cp, da, db, k), sync)
            report("cupy " + cp.__version__, "loop", n, dtype, k, seconds, float(cp.sqrt(rr)))
            # cupyx renamed SciPy's old `tol` to `rtol` (as SciPy did); pass what this one takes.
            tolerance = {"rtol": 0.0} if "rtol" in inspect.signature(cla.cg).parameters else {"tol": 0.0}
            seconds, (x, _) = timed(lambda: cla.cg(da, db, maxiter=k, **tolerance), sync)
            report("cupy " + cp.__version__, "cupyx.cg", n, dtype, k, seconds,
                   float(cp.linalg.norm(db - da @ x)))
        except ImportError as e:
            print(json.dumps({"impl": "cupy", "skipped": str(e)}), flush=True)
    if args.only in (None, "jax"):
        try:
            import jax
            import jax.numpy as jnp
            from jax.experimental import sparse as jsparse
            jax.config.update("jax_enable_x64", dtype == np.float64)
            ja = jsparse.BCOO.from_scipy_sparse(a)
            jb = jnp.asarray(b)
            solve = jax.jit(lambda bb: jax.scipy.sparse.linalg.cg(lambda v: ja @ v, bb, tol=0.0,
                                                                   maxiter=k)[0])
            seconds, x = timed(lambda: solve(jb), lambda: None)
            x.block_until_ready()
            seconds, x = timed(lambda: solve(jb).block_until_ready(), lambda: None)
            report("jax " + jax.__version__, "cg", n, dtype, k, seconds,
                   float(jnp.linalg.norm(jb - ja @ x)))
        except ImportError as e:
            print(json.dumps({"impl": "jax", "skipped": str(e)}), flush=True)


if __name__ == "__main__":
    main()
