# LLVM, linked statically. Sets CUDAJIT_LLVM_LIBS (imported static library targets, whose own
# dependencies come along) and CUDAJIT_LLVM_DEFINITIONS.

# A build folder configured for another LLVM version forgets the old one.
if(LLVM_DIR MATCHES "/llvm-([0-9]+)/" AND NOT CMAKE_MATCH_1 STREQUAL CUDAJIT_LLVM_VERSION)
  unset(LLVM_DIR CACHE)
endif()
find_package(LLVM CONFIG QUIET NO_DEFAULT_PATH
             PATHS /usr/lib/llvm-${CUDAJIT_LLVM_VERSION}/lib/cmake/llvm)
if(NOT LLVM_FOUND)
  find_package(LLVM CONFIG REQUIRED)
endif()
if(NOT LLVM_VERSION_MAJOR STREQUAL CUDAJIT_LLVM_VERSION)
  message(FATAL_ERROR "cudajit: found LLVM ${LLVM_PACKAGE_VERSION} in ${LLVM_DIR}, wanted "
                      "${CUDAJIT_LLVM_VERSION} (install llvm-${CUDAJIT_LLVM_VERSION}-dev, or set "
                      "-DCUDAJIT_LLVM_VERSION= or -DLLVM_DIR=)")
endif()
message(STATUS "cudajit: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
if(NOT LLVM_ENABLE_RTTI)
  message(WARNING "cudajit: this LLVM was built without RTTI; classes deriving from LLVM's need "
                  "-fno-rtti")
endif()
# With the glibc compatibility shims (cmake/CudajitGlibcCompat.cmake), LLVM's zstd is linked in
# statically (Debian's libzstd.a is position-independent): auditwheel would otherwise copy
# Debian 12's libzstd.so.1 into the wheel, and it calls pthread_create@GLIBC_2.34. Linked in, its
# references go through the shims like ours.
if(CUDAJIT_GLIBC_COMPAT AND TARGET zstd::libzstd_shared AND TARGET zstd::libzstd_static)
  get_target_property(zstd_static_location zstd::libzstd_static IMPORTED_LOCATION)
  set_target_properties(zstd::libzstd_shared PROPERTIES IMPORTED_LOCATION
                                                        "${zstd_static_location}")
  message(STATUS "cudajit: zstd linked statically: ${zstd_static_location}")
endif()

# What compiler/src uses (see the top of compiler/src/target/llvm_support.hpp): NVPTX for PTX, the
# host target (${LLVM_NATIVE_ARCH}: X86 here) and ORC for the cpu device, the optimisation
# pipelines, bitcode reading, writing and linking for libdevice. The rest comes transitively.
set(CUDAJIT_LLVM_COMPONENTS
    nvptxcodegen nvptxdesc nvptxinfo
    ${LLVM_NATIVE_ARCH}codegen ${LLVM_NATIVE_ARCH}asmparser ${LLVM_NATIVE_ARCH}desc
    ${LLVM_NATIVE_ARCH}info
    orcjit passes ipo linker bitreader bitwriter irreader support core target analysis
    transformutils scalaropts instcombine)
llvm_map_components_to_libnames(CUDAJIT_LLVM_LIBS ${CUDAJIT_LLVM_COMPONENTS})

separate_arguments(CUDAJIT_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
