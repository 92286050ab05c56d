# glibc compatibility of the shipped libraries (_core, libcudajit.so, libcudajit_sim.so).
#
# Built on Debian 12 (glibc 2.36, GCC 12), or Debian 13 and unstable for their Pythons
# (scripts/pythons.sh), the libraries reference glibc and libstdc++ symbol versions that older
# distributions lack (arc4random@GLIBC_2.36 from LLVM's libLLVMSupport, ...),
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
  # The shims bind libstdc++ symbols to old versions of libstdc++.so.6: a toolchain that links
  # libstdc++ statically (some GCC builds do by default) has no such versions to bind to, and
  # the link would fail ("no symbol version section for versioned symbol").
  include(CheckCXXSourceCompiles)
  check_cxx_source_compiles([[
    #include <sstream>
    __asm__(".symver cudajit_probe_str, _ZNKSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE3strEv@GLIBCXX_3.4.21");
    extern "C" void cudajit_probe_str(void*, const void*);
    int main() { std::stringbuf b; std::string s; cudajit_probe_str(&s, &b); return 0; }
  ]] CUDAJIT_SHARED_LIBSTDCXX_VERSIONS)
  if(CUDAJIT_SHARED_LIBSTDCXX_VERSIONS)
    set(CUDAJIT_GLIBC_COMPAT_DEFAULT ON)
  else()
    message(STATUS "cudajit: libstdc++ is not linked as libstdc++.so.6 here; the libraries are "
                   "built without the glibc compatibility shims (they then need this system's glibc)")
    set(CUDAJIT_GLIBC_COMPAT_DEFAULT OFF)
  endif()
else()
  set(CUDAJIT_GLIBC_COMPAT_DEFAULT OFF)
endif()
option(CUDAJIT_GLIBC_COMPAT
       "Link glibc/libstdc++ compatibility shims into the shipped libraries (Linux x86-64, glibc)"
       ${CUDAJIT_GLIBC_COMPAT_DEFAULT})

# The symbols redirected to support/glibc_compat.cpp, each with the version it replaces.
set(CUDAJIT_GLIBC_COMPAT_WRAPPED
  # GLIBC_2.38 (C23 strtol), GLIBCXX_3.4.31 (GCC 13), CXXABI_1.3.15 (GCC 14): Debian 13 and later
  __isoc23_strtol __isoc23_strtoul __isoc23_strtoll __isoc23_strtoull
  _ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE15_M_replace_coldEPcmPKcmm
  __cxa_call_terminate
  sqrtf  # GLIBC_2.43 (Debian unstable)
  arc4random  # GLIBC_2.36
  _ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE  # GLIBCXX_3.4.30
  # GLIBC_2.34: libpthread and libdl merged into libc
  pthread_create pthread_join pthread_once pthread_rwlock_rdlock pthread_rwlock_wrlock pthread_rwlock_unlock
  pthread_attr_getstack pthread_cond_clockwait dlopen dlsym dlclose dlerror dladdr
  # GLIBC_2.33
  stat fstat lstat stat64 fstat64 lstat64 mknod mallinfo2
  # GLIBC_2.32
  __libc_single_threaded pthread_getattr_np pthread_sigmask
  # GLIBCXX_3.4.29: std::__throw_bad_array_new_length, std::stringbuf::str() const&
  _ZSt28__throw_bad_array_new_lengthv
  _ZNKRSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE3strEv
  # CXXABI_1.3.13: std::exception_ptr::_M_addref, _M_release
  _ZNSt15__exception_ptr13exception_ptr9_M_addrefEv
  _ZNSt15__exception_ptr13exception_ptr10_M_releaseEv
  # GLIBCXX_3.4.26: std::stringstream's default constructor
  _ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEEC1Ev
  # GLIBC_2.29: without SVID error handling
  exp exp2 log log2 pow
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
  # Before glibc 2.34 the old versions of pthread_* and dl* that the shims call are defined in
  # libpthread.so.0 and libdl.so.2 (empty since, and with no libpthread.so to find with
  # -lpthread): the target names them, --as-needed or not.
  target_link_options(${target} PRIVATE "SHELL:-Wl,--push-state,--no-as-needed \
                      -l:libpthread.so.0 -l:libdl.so.2 -Wl,--pop-state")
  # ld.lld 14 (Debian 12's) keeps a wrapped symbol's original reference, with its new version,
  # in .dynsym (unused, but the loader still demands the version): these targets link with
  # ld.bfd (cudajit_use_fast_linker() skips them).
  set_target_properties(${target} PROPERTIES CUDAJIT_GLIBC_COMPAT ON)
endfunction()
