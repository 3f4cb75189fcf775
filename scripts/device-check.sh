#!/usr/bin/env bash
# device-check.sh — what a device run does on the GPU machine (see docs/performance.md):
#   tests:  the GPU tests (differential random graphs against the interpreter, reductions,
#           errors, residency), every unit test with evaluation on the GPU, and
#           compute-sanitizer memcheck over a subset;
#   bench:  bench_gpu (also with GPUC_GPU_VECTOR_REDUCTIONS=0, GPUC_FAST_MATH=1 and, for the
#           latency rows, GPUC_CUDA_GRAPHS=0) and the
#           peers (CuPy, cupy.fuse, JAX, torch.compile) side by side, JSON lines plus a table;
#   library: bench_gpu --library (cuBLAS GEMMs, cuFFT transforms, the fusion around them)
#           beside CuPy and torch (bench/gpu/library_peers.py);
#   user-kernels: bench_gpu --user-kernels (a chain with a user's elementwise op, RawKernel
#           cold compile and warm cache load) beside CuPy (bench/gpu/user_kernel_peers.py);
#   writes: the write, array-index, counting and plan-cache tests on the GPU, and
#           bench_gpu --loop (a C++ time loop, plan cache on and off);
#   science: the scientific workloads of bench/science/ beside CuPy and JAX;
#   loops: issue 31's loop programs (bench/loops/) on the GPU and the host, NumPy beside;
#   counting: the scatter, scan and sort tests, then bench_gpu --counting (cumsum, bincount,
#           add.at, sort, argsort, unique, median) beside CuPy and JAX (counting_peers.py);
#   linalg: the cuSOLVER tests, then bench_gpu --linalg (solve, inv, det, cholesky, eigh)
#           beside CuPy and torch (linalg_peers.py).
# Usage there: bash scripts/device-check.sh tests|bench|library|user-kernels|writes|science|loops|counting|linalg
# [--quick]; logs
# go to $OUT.
set -uo pipefail
mode=${1:?tests or bench}
quick=${2:-}
out=${OUT:-/tmp/gpuc-out}
mkdir -p "$out"
tar xzf carry/gpuc-device.tar.gz -C /tmp
bin=/tmp/gpuc-device/bin
export GPUC_CACHE_DIR=/tmp/gpuc-cache GPUC_SOURCE_DIR=$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
"$bin/gpuc" --info
if [ "$mode" = tests ]; then
  GPUC_POISON=1 "$bin/gpuc_gpu_tests" 2>&1 | tee "$out/gpu_tests.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|launches|^\[ RUN.*Gpu" | head -60
  "$bin/gpuc_gpu_fault_test" 2>&1 | tail -3
  # Every unit test evaluates on the GPU here (the default where there is a device). They
  # assert NumPy's bits, so float scatter-adds keep NumPy's order (GPUC_DETERMINISTIC=1; the
  # GPU's atomic scatters have their own tests in gpuc_gpu_tests' ScatterGpu).
  GPUC_DETERMINISTIC=1 GPUC_POISON=1 "$bin/gpuc_unit_tests" 2>&1 | tee "$out/unit_tests_on_gpu.log" | grep -E "^\[  (FAILED|PASSED) |Failure" | head -40
  # The same differential suite with element-by-element reduction loads (the other path).
  GPUC_GPU_VECTOR_REDUCTIONS=0 GPUC_POISON=1 GPUC_CACHE_DIR=/tmp/gpuc-cache-scalar \
    "$bin/gpuc_gpu_tests" --gtest_filter='GpuBackendTest.*' 2>&1 | tee "$out/gpu_tests_scalar_reductions.log" |
    grep -E "^\[  (FAILED|PASSED) |Failure|launches" | head -20
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  GPUC_DIFFERENTIAL_GRAPHS=40 GPUC_POISON=1 GPUC_CACHE_DIR=/tmp/gpuc-cache-sanitizer \
    "$sanitizer" --tool memcheck --leak-check no --error-exitcode 3 \
    "$bin/gpuc_gpu_tests" --gtest_filter='GpuBackendTest.*' 2>&1 | tee "$out/memcheck.log" | tail -15
  echo "memcheck exit status: ${PIPESTATUS[0]}"
  # Users' CUDA kernels (NVRTC, nvJitLink-linked user functions) under memcheck too.
  GPUC_POISON=1 GPUC_CACHE_DIR=/tmp/gpuc-cache-sanitizer "$sanitizer" --tool memcheck --leak-check no \
    --error-exitcode 3 "$bin/gpuc_gpu_tests" \
    --gtest_filter='RawKernelGpu*:RawModuleGpu*:ElementwiseKernelGpu*:ReductionKernelGpu*' 2>&1 |
    tee "$out/memcheck_raw_kernels.log" | tail -6
  echo "raw kernel memcheck exit status: ${PIPESTATUS[0]}"
  for f in examples/*.gir; do
    "$bin/gpuc" "$f" --run --target=gpu --stats --show=3 > /tmp/gpu.txt 2>&1
    "$bin/gpuc" "$f" --run --target=interp --show=3 > /tmp/interp.txt 2>&1
    echo "== $f"; tail -n +2 /tmp/gpu.txt | head -8
  done
elif [ "$mode" = counting ]; then
  GPUC_POISON=1 "$bin/gpuc_gpu_tests" --gtest_filter='ScatterGpu.*:ScanGpu.*:SortGpu.*' 2>&1 |
    tee "$out/counting_tests.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|^\[ +(OK|RUN) " | head -60
  timeout 300 "$bin/bench_gpu" --counting $quick | tee "$out/counting-bench.jsonl"
  timeout 400 python3 bench/gpu/counting_peers.py $quick | tee -a "$out/counting-bench.jsonl"
elif [ "$mode" = linalg ]; then
  GPUC_POISON=1 "$bin/gpuc_gpu_tests" --gtest_filter='SolverGpu.*' 2>&1 |
    tee "$out/linalg_tests.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|^\[ +(OK|RUN) " | head -40
  GPUC_POISON=1 "$bin/gpuc_unit_tests" --gtest_filter='*inalg*:ApiFixtures.*' 2>&1 |
    tee "$out/linalg_unit_tests_on_gpu.log" | grep -E "^\[  (FAILED|PASSED) |Failure" | head -20
  timeout 240 "$bin/bench_gpu" --linalg $quick | tee "$out/linalg-bench.jsonl"
  timeout 300 python3 bench/gpu/linalg_peers.py $quick | tee -a "$out/linalg-bench.jsonl"
elif [ "$mode" = loops ]; then
  # Issue 31's loop programs on the GPU (kernels compiled, cold and warm), then on the host
  # of the same machine, and NumPy's time and check beside them.
  # The GPU machine's NumPy is the python3 on its PATH, not /usr/bin/python3's.
  export PYTHON=python3
  # The loop tests with evaluation on the GPU first (positions as plan values, writes in place).
  GPUC_POISON=1 "$bin/gpuc_unit_tests" \
    --gtest_filter='LoopSteps*:TracedLoops*:PlanCache*:Writes.*:ArrayIndexWrites.*' 2>&1 |
    tee "$out/loop_tests_on_gpu.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" | head -30
  GPUC_CACHE_DIR=/tmp/gpuc-cache-loops bash bench/loops/run.sh "$bin/bench_loops" "$out/loops-gpu"
  # CuPy (the same code as NumPy's) and JAX (each program one jitted fori_loop), checked
  # against gpuc's results.
  timeout 300 python3 bench/loops/numpy_loops.py --module cupy --check "$out/loops-gpu" |
    tee "$out/loops-gpu/cupy.jsonl"
  timeout 300 python3 bench/loops/jax_loops.py --check "$out/loops-gpu" | tee "$out/loops-gpu/jax.jsonl"
  rm -f "$out"/loops-gpu/*.npy  # the checks are done; the results need not travel back
  # Issue 33's iterative solvers on the GPU (SciPy's time is the CPU's: bench/solvers).
  timeout 200 "$bin/bench_solvers" | tee "$out/solvers-gpu.jsonl"
  GPUC_BACKEND=host bash bench/loops/run.sh "$bin/bench_loops" "$out/loops-host" | grep gpuc
elif [ "$mode" = user-kernels ]; then
  timeout 240 "$bin/bench_gpu" --user-kernels $quick | tee "$out/user-kernels-bench.jsonl"
  timeout 300 python3 bench/gpu/user_kernel_peers.py $quick | tee -a "$out/user-kernels-bench.jsonl"
  python3 bench/gpu/table.py "$out/user-kernels-bench.jsonl" | tee "$out/user-kernels-table.md"
elif [ "$mode" = writes ]; then
  # Writes, array-index updates, counting and the plan cache evaluated on the GPU, then a
  # plain C++ time loop over lazy ops timed with the plan cache on and off.
  GPUC_POISON=1 "$bin/gpuc_unit_tests" \
    --gtest_filter='ApiFixtures.*:Writes.*:ArrayIndexWrites.*:Counting.*:PlanCache*:StructuralKey.*' 2>&1 |
    tee "$out/writes_on_gpu.log" | grep -E "^\[  (FAILED|PASSED) |Failure|OK \]" | head -40
  timeout 240 "$bin/bench_gpu" --loop $quick | tee "$out/loop-bench.jsonl"
elif [ "$mode" = science ]; then
  # The scientific workloads (bench/science/) in gpuc and in CuPy and JAX, one run.
  "$bin/example_heat_equation"
  "$bin/science_heat2d" --check test/fixtures/science
  timeout 120 "$bin/science_heat2d" $([ -n "$quick" ] && echo --steps 20) | tee "$out/science.jsonl"
  timeout 300 python3 bench/science/heat2d_peers.py $([ -n "$quick" ] && echo --steps 20) |
    tee -a "$out/science.jsonl"
  # 3-D 7-point Jacobi, 512^3 f32: both gpuc forms, NumPy's loop on the host, CuPy, JAX.
  "$bin/science_jacobi3d" --check test/fixtures/science
  timeout 180 "$bin/science_jacobi3d" $([ -n "$quick" ] && echo --steps 10) | tee -a "$out/science.jsonl"
  for peer in cupy jax; do  # NumPy at the GPU's sizes would take the run's whole budget
    timeout 300 python3 bench/science/jacobi3d_peers.py --only $peer $([ -n "$quick" ] && echo --steps 10) |
      tee -a "$out/science.jsonl"
  done
  # 2-D shallow water (Lax-Friedrichs, reflective walls), 4096^2 f64.
  "$bin/science_shallow_water" --check test/fixtures/science
  timeout 180 "$bin/science_shallow_water" $([ -n "$quick" ] && echo --steps 10) | tee -a "$out/science.jsonl"
  for peer in cupy jax; do  # NumPy at the GPU's sizes would take the run's whole budget
    timeout 300 python3 bench/science/shallow_water_peers.py --only $peer $([ -n "$quick" ] && echo --steps 10) |
      tee -a "$out/science.jsonl"
  done
  # Monte-Carlo European call, 2^28 float32 paths in 16 batches, Philox in the kernel.
  "$bin/science_monte_carlo" --check
  timeout 180 "$bin/science_monte_carlo" $([ -n "$quick" ] && echo --log2-paths 24) | tee -a "$out/science.jsonl"
  for peer in cupy jax; do  # NumPy at the GPU's sizes would take the run's whole budget
    timeout 300 python3 bench/science/monte_carlo_peers.py --only $peer $([ -n "$quick" ] && echo --log2-paths 24) |
      tee -a "$out/science.jsonl"
  done
  # k-means, 2^22 points x 16 dims, 64 centroids (distances, argmin, scatter-add, bincount).
  "$bin/science_kmeans" --check test/fixtures/science
  timeout 180 "$bin/science_kmeans" $([ -n "$quick" ] && echo --log2-points 18) | tee -a "$out/science.jsonl"
  timeout 300 python3 bench/science/kmeans_peers.py --only cupy $([ -n "$quick" ] && echo --log2-points 18) |
    tee -a "$out/science.jsonl"
  timeout 300 python3 bench/science/kmeans_peers.py --only jax $([ -n "$quick" ] && echo --log2-points 18) |
    tee -a "$out/science.jsonl"
  # All-pairs n-body, 32768 bodies f32.
  "$bin/science_nbody" --check test/fixtures/science
  timeout 240 "$bin/science_nbody" $([ -n "$quick" ] && echo --n 8192) | tee -a "$out/science.jsonl"
  timeout 300 python3 bench/science/nbody_peers.py --only cupy $([ -n "$quick" ] && echo --n 8192) |
    tee -a "$out/science.jsonl"
  timeout 300 python3 bench/science/nbody_peers.py --only jax $([ -n "$quick" ] && echo --n 8192) |
    tee -a "$out/science.jsonl"
  # Conjugate gradient on the 2-D Poisson matrix (2048^2 unknowns, f32): a plain C++ loop and
  # fori_loop in gpuc, cupyx's cg and the loop in CuPy, JAX's cg, in the same run.
  "$bin/science_cg" --check test/fixtures/science
  timeout 180 "$bin/science_cg" $([ -n "$quick" ] && echo --iterations 20) | tee -a "$out/science.jsonl"
  for peer in cupy jax; do  # NumPy at the GPU's sizes would take the run's whole budget
    timeout 300 python3 bench/science/cg_peers.py --only $peer $([ -n "$quick" ] && echo --iterations 20) |
      tee -a "$out/science.jsonl"
  done
elif [ "$mode" = library ]; then
  timeout 240 "$bin/bench_gpu" --library $quick | tee "$out/library-bench.jsonl"
  # The bias and ReLU as a kernel of their own instead of the GEMM's epilogue, side by side.
  GPUC_BENCH_LABEL=gpuc-no-epilogues GPUC_GEMM_EPILOGUES=0 \
    timeout 240 "$bin/bench_gpu" --library $quick | tee -a "$out/library-bench.jsonl"
  timeout 300 python3 bench/gpu/library_peers.py $quick | tee -a "$out/library-bench.jsonl"
  python3 bench/gpu/table.py "$out/library-bench.jsonl" | tee "$out/library-table.md"
else
  timeout 240 "$bin/bench_gpu" $quick | tee "$out/bench.jsonl"
  # Variants beside the defaults in the same run (fresh caches: the
  # options are part of the kernels' keys anyway).
  GPUC_BENCH_LABEL=gpuc-scalar-reductions GPUC_GPU_VECTOR_REDUCTIONS=0 GPUC_CACHE_DIR=/tmp/gpuc-cache-scalar \
    timeout 120 "$bin/bench_gpu" $quick | tee -a "$out/bench.jsonl"
  GPUC_BENCH_LABEL=gpuc+fast-math GPUC_FAST_MATH=1 GPUC_CACHE_DIR=/tmp/gpuc-cache-fast \
    timeout 120 "$bin/bench_gpu" $quick | tee -a "$out/bench.jsonl"
  # Repeated plans launched kernel by kernel instead of as CUDA graphs: the latency rows.
  GPUC_BENCH_LABEL=gpuc-no-graphs GPUC_CUDA_GRAPHS=0 timeout 60 "$bin/bench_gpu" --latency |
    tee -a "$out/bench.jsonl"
  python3 bench/gpu/peers.py $quick | tee -a "$out/bench.jsonl"
  python3 bench/gpu/table.py "$out/bench.jsonl" | tee "$out/table.md"
fi
