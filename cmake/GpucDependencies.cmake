# GpucDependencies.cmake — find every third-party dependency in one place.
#
# All come from Debian's packages (scripts/install-deps.sh). GPUC_STATIC_DEPS builds binaries for
# the GPU machine, which lacks these libraries (shared/DEVICE.md).

if(GPUC_STATIC_DEPS)
  # Debian's static Abseil archives use initial-exec TLS and cannot go into a shared library,
  # so Abseil stays shared in this mode: scripts/bundle-device.sh ships its .so files next to
  # libgpuc.so, and the $ORIGIN run path finds them there. LLVM (from the codegen issues),
  # GoogleTest and the C++ runtime are linked statically.
  set(CMAKE_BUILD_RPATH "$ORIGIN:$ORIGIN/../lib")
  set(CMAKE_BUILD_RPATH_USE_ORIGIN ON)
  # DT_RPATH, not DT_RUNPATH: a run path also serves the libraries' own dependencies
  # (libabsl_synchronization needs libabsl_spinlock_wait), which RUNPATH does not.
  add_link_options(-Wl,--disable-new-dtags)
endif()

find_package(LLVM 19.1 REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm)
message(STATUS "gpuc: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
find_package(absl REQUIRED CONFIG)
find_package(nlohmann_json 3 REQUIRED CONFIG)

# LLVM's test tools: FileCheck ships with llvm-19-tools, lit as a script under build/utils.
find_program(GPUC_FILECHECK FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
find_file(GPUC_LIT lit.py HINTS ${LLVM_TOOLS_BINARY_DIR}/../build/utils/lit
          /usr/lib/llvm-19/build/utils/lit REQUIRED)
# lit and the fixture scripts need Debian's python3 (the one with NumPy), not a pyenv shim.
find_program(GPUC_PYTHON python3 HINTS /usr/bin NO_DEFAULT_PATH)
if(NOT GPUC_PYTHON)
  find_program(GPUC_PYTHON python3 REQUIRED)
endif()

# CUDA headers only: nothing links libcuda (the runtime dlopens the driver).
find_path(GPUC_CUDA_INCLUDE_DIR cuda.h HINTS /usr/local/cuda/include REQUIRED)
message(STATUS "gpuc: CUDA headers at ${GPUC_CUDA_INCLUDE_DIR}")

# The Abseil libraries the project uses, as one interface target.
add_library(gpuc_absl INTERFACE)
target_link_libraries(gpuc_absl INTERFACE absl::status absl::statusor absl::strings
                      absl::str_format absl::flat_hash_map absl::flat_hash_set absl::span
                      absl::inlined_vector)

# LLVM, as one interface target: the shared libLLVM normally (linked once, into libgpuc.so),
# the component archives for the GPU machine's self-contained build.
add_library(gpuc_llvm INTERFACE)
target_include_directories(gpuc_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
separate_arguments(GPUC_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(gpuc_llvm INTERFACE ${GPUC_LLVM_DEFINITIONS})
if(GPUC_STATIC_DEPS)
  llvm_map_components_to_libnames(GPUC_LLVM_LIBS core support passes orcjit executionengine
                                  nvptxcodegen nvptxdesc nvptxinfo linker bitreader
                                  native nativecodegen mc target targetparser irprinter)
  target_link_libraries(gpuc_llvm INTERFACE ${GPUC_LLVM_LIBS})
else()
  target_link_libraries(gpuc_llvm INTERFACE LLVM)
endif()
