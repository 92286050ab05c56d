# glibc compatibility of the shipped libraries (_core, libcudajit.so, libcudajit_sim.so).
#
# Built on Debian 12 (glibc 2.36, GCC 12), the libraries reference glibc and libstdc++ symbol
# versions that older distributions lack (arc4random@GLIBC_2.36 from LLVM's libLLVMSupport, ...),
# and auditwheel tags the wheel for the newest of them. cudajit_glibc_compat(target) links
# support/glibc_compat.cpp into the target and redirects each symbol below to its shim there
# (-Wl,--wrap=SYMBOL: references to SYMBOL go to __wrap_SYMBOL), which calls a version that old
# glibc has too, or does the same itself. scripts/wheel-test.sh checks the wheel's tag.
#
# Linux, glibc, x86-64 only; -DCUDAJIT_GLIBC_COMPAT=OFF builds without the shims.
include(CheckSymbolExists)

check_symbol_exists(__GLIBC__ features.h CUDAJIT_HAVE_GLIBC)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CUDAJIT_HAVE_GLIBC
   AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(CUDAJIT_GLIBC_COMPAT_DEFAULT ON)
else()
  set(CUDAJIT_GLIBC_COMPAT_DEFAULT OFF)
endif()
option(CUDAJIT_GLIBC_COMPAT
       "Link glibc/libstdc++ compatibility shims into the shipped libraries (Linux x86-64, glibc)"
       ${CUDAJIT_GLIBC_COMPAT_DEFAULT})

# The symbols redirected to support/glibc_compat.cpp, each with the version it replaces.
set(CUDAJIT_GLIBC_COMPAT_WRAPPED
  arc4random  # GLIBC_2.36
  _ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE  # GLIBCXX_3.4.30
)

if(CUDAJIT_GLIBC_COMPAT)
  add_library(cudajit_glibc_compat OBJECT ${PROJECT_SOURCE_DIR}/support/glibc_compat.cpp)
  set_target_properties(cudajit_glibc_compat PROPERTIES POSITION_INDEPENDENT_CODE ON)
endif()

function(cudajit_glibc_compat target)
  if(NOT CUDAJIT_GLIBC_COMPAT)
    return()
  endif()
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:cudajit_glibc_compat>)
  foreach(symbol IN LISTS CUDAJIT_GLIBC_COMPAT_WRAPPED)
    target_link_options(${target} PRIVATE "LINKER:--wrap=${symbol}")
  endforeach()
  # ld.lld 14 (Debian 12's) keeps a wrapped symbol's original reference, with its new version,
  # in .dynsym (unused, but the loader still demands the version): these targets link with
  # ld.bfd (cudajit_use_fast_linker() skips them).
  set_target_properties(${target} PROPERTIES CUDAJIT_GLIBC_COMPAT ON)
endfunction()
