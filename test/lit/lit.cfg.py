# lit configuration for gpuc: .gir files with RUN lines, run through gpuc and FileCheck.
import os

import lit.formats

config.name = "gpuc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".gir", ".json", ".cu"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(config.gpuc_bin_dir), "test", "lit")
config.environment["PATH"] = os.pathsep.join(
    [config.gpuc_bin_dir, config.filecheck_dir, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%examples", config.examples_dir))
# Kernels compiled by the tests go to a cache of their own, never the user's.
config.environment["GPUC_CACHE_DIR"] = os.path.join(config.test_exec_root, "kernel-cache")
# Outputs start as a poison pattern, so an element a kernel does not write shows up.
config.environment["GPUC_POISON"] = "1"
# PTX tests need libdevice (for --emit=ptx) and assemble their output with ptxas, both from
# the CUDA toolkit: /usr/local/cuda, or $CUDA_HOME.
cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
if os.path.exists(os.path.join(cuda_home, "nvvm", "libdevice", "libdevice.10.bc")):
    config.available_features.add("libdevice")
    config.environment["CUDA_HOME"] = cuda_home
ptxas = os.path.join(cuda_home, "bin", "ptxas")
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
# User kernels (gpuc --compile-cuda) need NVRTC from the toolkit; no GPU.
if any(os.path.exists(os.path.join(cuda_home, d, "libnvrtc.so.13")) for d in ("lib", "lib64")):
    config.available_features.add("nvrtc")
