# GpucDependencies.cmake — find every third-party dependency in one place.
#
# All come from Debian's packages (scripts/install-deps.sh). With GPUC_STATIC_DEPS the static
# archives are preferred so that the binaries run on the GPU machine, which lacks these libraries.

if(GPUC_STATIC_DEPS)
  # Abseil's CMake package exports whichever of .so/.a it was built as; Debian's is shared, so
  # the static archives (which Debian also ships) are picked by file name below.
  set(GPUC_PREFER_STATIC ON)
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
find_path(GPUC_CUDA_INCLUDE_DIR cuda.h HINTS /usr/local/cuda/include)
if(GPUC_CUDA_INCLUDE_DIR)
  message(STATUS "gpuc: CUDA headers at ${GPUC_CUDA_INCLUDE_DIR}")
else()
  message(STATUS "gpuc: CUDA headers not found; GPU back ends will be built without them")
endif()

# The Abseil libraries the project uses, as one interface target, static when asked.
set(GPUC_ABSL_COMPONENTS status statusor str_format_internal strings strings_internal
    raw_hash_set hash city low_level_hash cord cord_internal cordz_info cordz_functions
    cordz_handle cordz_sample_token crc_cord_state crc32c crc_internal crc_cpu_detect
    synchronization graphcycles_internal time time_zone civil_time stacktrace symbolize
    debugging_internal demangle_internal malloc_internal base spinlock_wait raw_logging_internal
    log_severity int128 throw_delegate exponential_biased strerror)
add_library(gpuc_absl INTERFACE)
if(GPUC_PREFER_STATIC)
  set(_absl_archives)
  foreach(component IN LISTS GPUC_ABSL_COMPONENTS)
    find_library(_absl_${component} NAMES libabsl_${component}.a)
    if(_absl_${component})
      list(APPEND _absl_archives ${_absl_${component}})
    endif()
  endforeach()
  # The archives depend on each other in no simple order: let the linker resolve them as a group.
  target_link_libraries(gpuc_absl INTERFACE "-Wl,--start-group" ${_absl_archives} "-Wl,--end-group")
  target_include_directories(gpuc_absl INTERFACE /usr/include)
else()
  target_link_libraries(gpuc_absl INTERFACE absl::status absl::statusor absl::strings
                        absl::str_format absl::flat_hash_map absl::flat_hash_set absl::span
                        absl::inlined_vector)
endif()
