# GpucInstall.cmake — `cmake --install` puts gpuc where another project can use it:
#   include/gpuc/*.h               the public API (standard headers only)
#   lib/libgpuc.so.0.1.0           with SONAME libgpuc.so.0, and the libgpuc.so link
#   bin/gpuc                       the command-line tool (finds ../lib/libgpuc.so.0)
#   lib/cmake/gpuc/gpucConfig.cmake, gpucConfigVersion.cmake: find_package(gpuc CONFIG)
#                                  gives the imported target gpuc::gpuc
#   lib/pkgconfig/gpuc.pc          for builds without CMake
# The CUDA libraries stay loaded at run time; LLVM, Abseil and OpenBLAS are libgpuc's own
# dependencies (Debian's packages), so a consumer links libgpuc alone. `cpack -G DEB` in the
# build directory makes a .deb of the same files.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(gpuc PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
set_target_properties(gpuc_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

install(TARGETS gpuc LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
install(TARGETS gpuc_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpuc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT runtime FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")

# The package describes the installed library as an imported target itself: libgpuc's build
# links gpuc's internal layers, which a consumer never sees, so no export set is involved.
set(GPUC_SONAME_FILE "libgpuc.so.${PROJECT_VERSION_MAJOR}")
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpucConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/gpucConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuc
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpucConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpucConfig.cmake ${PROJECT_BINARY_DIR}/gpucConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuc COMPONENT runtime)
configure_file(${PROJECT_SOURCE_DIR}/cmake/gpuc.pc.in ${PROJECT_BINARY_DIR}/gpuc.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gpuc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT runtime)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpuc)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gpuc developers <gpuc@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "A lazy array compiler for NVIDIA GPUs, from C++")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libllvm19, libabsl20220623, libopenblas0, libstdc++6")
# SuperLU is opened at run time (spsolve): recommended, not required.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libsuperlu5")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # gpuc_0.1.0_amd64.deb
include(CPack)
