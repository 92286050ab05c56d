# Linker choice. Linking LLVM's static archives (into libcudajit and into the C++ tests)
# dominates incremental builds; ld.lld does it several times faster than ld.bfd.
# cudajit_use_fast_linker(target) applies it to one target: not globally, since ld.lld cannot
# read GCC's LTO objects, which pybind11 uses for _core under GCC. Nor for a target with the glibc
# compatibility shims (cmake/CudajitGlibcCompat.cmake): ld.lld 14 leaves the wrapped symbols'
# new versions in .dynsym. ld.bfd links libcudajit in 2 s, ld.lld in 0.5 s.
include(CheckLinkerFlag)

if(CUDAJIT_USE_LLD)
  check_linker_flag(CXX "-fuse-ld=lld" CUDAJIT_HAVE_LLD)
endif()

function(cudajit_use_fast_linker target)
  if(CUDAJIT_USE_LLD AND CUDAJIT_HAVE_LLD)
    target_link_options(${target} PRIVATE
                        $<$<NOT:$<BOOL:$<TARGET_PROPERTY:CUDAJIT_GLIBC_COMPAT>>>:-fuse-ld=lld>)
  endif()
endfunction()
