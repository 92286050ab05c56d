# Linker choice. Linking LLVM's static archives (into libcudajit and into the C++ tests)
# dominates incremental builds; ld.lld does it several times faster than ld.bfd.
# cudajit_use_fast_linker(target) applies it to one target: not globally, since ld.lld cannot
# read GCC's LTO objects, which pybind11 uses for _core under GCC.
include(CheckLinkerFlag)

if(CUDAJIT_USE_LLD)
  check_linker_flag(CXX "-fuse-ld=lld" CUDAJIT_HAVE_LLD)
endif()

function(cudajit_use_fast_linker target)
  if(CUDAJIT_USE_LLD AND CUDAJIT_HAVE_LLD)
    target_link_options(${target} PRIVATE -fuse-ld=lld)
  endif()
endfunction()
