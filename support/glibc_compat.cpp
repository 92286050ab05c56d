// glibc and libstdc++ compatibility shims for the wheel's shared libraries (_core,
// libcudajit.so, libcudajit_sim.so).
//
// The libraries are built on Debian 12 (glibc 2.36, GCC 12) and link LLVM's static archives from
// Debian's llvm-19-dev, so their references bind to the newest versions of some glibc and
// libstdc++ symbols, and an older distribution's dynamic loader refuses them. cmake/
// CudajitGlibcCompat.cmake links this file into each library and passes -Wl,--wrap=SYMBOL for
// the symbols listed there: every reference to SYMBOL then goes to __wrap_SYMBOL below, which
// calls a version of the same function that old and new glibc both export (bound with .symver),
// or does the same thing itself. Each shim keeps the function's return value and errno.
//
// x86-64 only (the base version GLIBC_2.2.5 and the stat ABI are x86-64's). The __wrap_
// functions are hidden: they never leave the library that contains them.

#include <cxxabi.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <exception>
#include <ios>

#define CUDAJIT_SHIM extern "C" __attribute__((visibility("hidden")))

// Binds LOCAL (declared below) to SYMBOL@VERSION, a version older glibc also has.
#define CUDAJIT_BIND(local, symbol_at_version) __asm__(".symver " #local ", " symbol_at_version)

// --- GLIBC_2.36 ---------------------------------------------------------------------------------

// arc4random (glibc 2.36; LLVM's Process::GetRandomNumber calls it). The same: 32 bits from the
// kernel's random pool (getrandom, glibc 2.25, waiting until the pool is initialised, as glibc's
// arc4random does), /dev/urandom where the kernel has no getrandom, errno left as it was, and the
// process ends when no randomness can be had (glibc's arc4random cannot fail either).
static bool read_urandom(void* buffer, size_t size) {
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = read(fd, static_cast<char*>(buffer) + done, size - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(fd);
  return done == size;
}

CUDAJIT_SHIM uint32_t __wrap_arc4random(void) {
  const int saved_errno = errno;
  uint32_t value = 0;
  size_t done = 0;
  while (done < sizeof value) {
    const ssize_t n = getrandom(reinterpret_cast<char*>(&value) + done, sizeof value - done, 0);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == ENOSYS && read_urandom(&value, sizeof value)) {
      break;
    } else {
      abort();
    }
  }
  errno = saved_errno;
  return value;
}

// --- GLIBCXX_3.4.30 (GCC 12) --------------------------------------------------------------------

// std::condition_variable::wait(unique_lock<mutex>&): GCC 12 exports it anew (GLIBCXX_3.4.30)
// only to drop the old one's noexcept, so that a cancelled thread (pthread_cancel) can unwind out
// of the wait; cudajit cancels no threads. Both wait on the same pthread condition variable.
extern "C" void cudajit_condition_variable_wait_3_4_11(void* self, void* lock);
CUDAJIT_BIND(cudajit_condition_variable_wait_3_4_11,
             "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE@GLIBCXX_3.4.11");
CUDAJIT_SHIM void __wrap__ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE(void* self,
                                                                                   void* lock) {
  cudajit_condition_variable_wait_3_4_11(self, lock);
}

// --- GLIBC_2.34: libpthread and libdl merged into libc ------------------------------------------

// glibc 2.34 moved these functions from libpthread.so.0 and libdl.so.2 into libc.so.6 and gave
// them a new version; the old one (GLIBC_2.2.5) remains, the same code at the same address. The
// libraries also name libpthread.so.0 and libdl.so.2 (DT_NEEDED), where older glibc defines the
// old versions. dlopen, dlsym (RTLD_NEXT) and dladdr judge by the caller's address, which stays
// in the same library: the shims are linked into it.
extern "C" int cudajit_pthread_create(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
CUDAJIT_BIND(cudajit_pthread_create, "pthread_create@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                                       void* (*start)(void*), void* argument) {
  return cudajit_pthread_create(thread, attr, start, argument);
}

extern "C" int cudajit_pthread_join(pthread_t, void**);
CUDAJIT_BIND(cudajit_pthread_join, "pthread_join@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_pthread_join(pthread_t thread, void** result) {
  return cudajit_pthread_join(thread, result);
}

extern "C" int cudajit_pthread_once(pthread_once_t*, void (*)(void));
CUDAJIT_BIND(cudajit_pthread_once, "pthread_once@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_pthread_once(pthread_once_t* once, void (*init)(void)) {
  return cudajit_pthread_once(once, init);
}

extern "C" int cudajit_pthread_rwlock_rdlock(pthread_rwlock_t*);
CUDAJIT_BIND(cudajit_pthread_rwlock_rdlock, "pthread_rwlock_rdlock@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_pthread_rwlock_rdlock(pthread_rwlock_t* lock) {
  return cudajit_pthread_rwlock_rdlock(lock);
}

extern "C" int cudajit_pthread_rwlock_wrlock(pthread_rwlock_t*);
CUDAJIT_BIND(cudajit_pthread_rwlock_wrlock, "pthread_rwlock_wrlock@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_pthread_rwlock_wrlock(pthread_rwlock_t* lock) {
  return cudajit_pthread_rwlock_wrlock(lock);
}

extern "C" int cudajit_pthread_rwlock_unlock(pthread_rwlock_t*);
CUDAJIT_BIND(cudajit_pthread_rwlock_unlock, "pthread_rwlock_unlock@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_pthread_rwlock_unlock(pthread_rwlock_t* lock) {
  return cudajit_pthread_rwlock_unlock(lock);
}

extern "C" int cudajit_pthread_attr_getstack(const pthread_attr_t*, void**, size_t*);
CUDAJIT_BIND(cudajit_pthread_attr_getstack, "pthread_attr_getstack@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_pthread_attr_getstack(const pthread_attr_t* attr, void** stack,
                                              size_t* size) {
  return cudajit_pthread_attr_getstack(attr, stack, size);
}

extern "C" void* cudajit_dlsym(void*, const char*);
CUDAJIT_BIND(cudajit_dlsym, "dlsym@GLIBC_2.2.5");
extern "C" char* cudajit_dlerror(void);
CUDAJIT_BIND(cudajit_dlerror, "dlerror@GLIBC_2.2.5");

// The running glibc's function `name`, or null where it is older: errno and dlerror() are
// left as they were for the program.
static void* glibc_function(const char* name) {
  const int saved_errno = errno;
  void* found = cudajit_dlsym(RTLD_DEFAULT, name);
  if (!found) cudajit_dlerror();
  errno = saved_errno;
  return found;
}

// pthread_cond_clockwait before glibc 2.30: the same wait, with pthread_cond_timedwait on the
// condition variable's clock, CLOCK_REALTIME (libstdc++ makes its condition variables with the
// default attributes). A CLOCK_MONOTONIC deadline becomes the same distance from now on the
// real-time clock, which the wait then follows (a clock change moves it, as it would have
// moved a real-time deadline).
CUDAJIT_SHIM int cudajit_cond_clockwait_fallback(pthread_cond_t* cond, pthread_mutex_t* mutex,
                                                 clockid_t clock, const struct timespec* deadline) {
  if ((clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) || deadline->tv_nsec < 0 ||
      deadline->tv_nsec >= 1'000'000'000)
    return EINVAL;
  if (clock == CLOCK_REALTIME) return pthread_cond_timedwait(cond, mutex, deadline);
  struct timespec monotonic, real;
  clock_gettime(CLOCK_MONOTONIC, &monotonic);
  clock_gettime(CLOCK_REALTIME, &real);
  int64_t left = (int64_t{deadline->tv_sec} - monotonic.tv_sec) * 1'000'000'000 +
                 (deadline->tv_nsec - monotonic.tv_nsec);
  if (left < 0) left = 0;
  int64_t nanoseconds = real.tv_nsec + left % 1'000'000'000;
  struct timespec until;
  until.tv_sec =
      real.tv_sec + static_cast<time_t>(left / 1'000'000'000 + nanoseconds / 1'000'000'000);
  until.tv_nsec = static_cast<long>(nanoseconds % 1'000'000'000);
  return pthread_cond_timedwait(cond, mutex, &until);
}

// pthread_cond_clockwait (libstdc++'s condition_variable::wait_until on steady_clock) came in
// glibc 2.30: glibc's own where the running glibc has it (looked up once), else the fallback.
CUDAJIT_SHIM int __wrap_pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                                               clockid_t clock, const struct timespec* deadline) {
  using Clockwait = int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
  static const auto glibc = reinterpret_cast<Clockwait>(glibc_function("pthread_cond_clockwait"));
  return (glibc ? glibc : cudajit_cond_clockwait_fallback)(cond, mutex, clock, deadline);
}

extern "C" void* cudajit_dlopen(const char*, int);
CUDAJIT_BIND(cudajit_dlopen, "dlopen@GLIBC_2.2.5");
CUDAJIT_SHIM void* __wrap_dlopen(const char* file, int mode) { return cudajit_dlopen(file, mode); }

CUDAJIT_SHIM void* __wrap_dlsym(void* handle, const char* name) {
  return cudajit_dlsym(handle, name);
}

extern "C" int cudajit_dlclose(void*);
CUDAJIT_BIND(cudajit_dlclose, "dlclose@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_dlclose(void* handle) { return cudajit_dlclose(handle); }

CUDAJIT_SHIM char* __wrap_dlerror(void) { return cudajit_dlerror(); }

extern "C" int cudajit_dladdr(const void*, Dl_info*);
CUDAJIT_BIND(cudajit_dladdr, "dladdr@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_dladdr(const void* address, Dl_info* info) {
  return cudajit_dladdr(address, info);
}

// --- GLIBC_2.33: stat as a function, mallinfo2 --------------------------------------------------

// Before glibc 2.33, stat, fstat, lstat, their 64 variants and mknod were inline wrappers (in
// libc_nonshared.a) around __xstat(_STAT_VER, ...) and __xmknod(_MKNOD_VER, ...), which glibc
// still exports. These call them as those wrappers did, with x86-64's _STAT_VER_LINUX (1) and
// _MKNOD_VER_LINUX (0); struct stat and struct stat64 are the kernel's struct stat on x86-64.
constexpr int stat_ver_linux = 1;
constexpr int mknod_ver_linux = 0;

extern "C" int cudajit_xstat(int, const char*, struct stat*);
CUDAJIT_BIND(cudajit_xstat, "__xstat@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_stat(const char* path, struct stat* buffer) {
  return cudajit_xstat(stat_ver_linux, path, buffer);
}

extern "C" int cudajit_fxstat(int, int, struct stat*);
CUDAJIT_BIND(cudajit_fxstat, "__fxstat@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_fstat(int fd, struct stat* buffer) {
  return cudajit_fxstat(stat_ver_linux, fd, buffer);
}

extern "C" int cudajit_lxstat(int, const char*, struct stat*);
CUDAJIT_BIND(cudajit_lxstat, "__lxstat@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_lstat(const char* path, struct stat* buffer) {
  return cudajit_lxstat(stat_ver_linux, path, buffer);
}

extern "C" int cudajit_xstat64(int, const char*, struct stat64*);
CUDAJIT_BIND(cudajit_xstat64, "__xstat64@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_stat64(const char* path, struct stat64* buffer) {
  return cudajit_xstat64(stat_ver_linux, path, buffer);
}

extern "C" int cudajit_fxstat64(int, int, struct stat64*);
CUDAJIT_BIND(cudajit_fxstat64, "__fxstat64@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_fstat64(int fd, struct stat64* buffer) {
  return cudajit_fxstat64(stat_ver_linux, fd, buffer);
}

extern "C" int cudajit_lxstat64(int, const char*, struct stat64*);
CUDAJIT_BIND(cudajit_lxstat64, "__lxstat64@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_lstat64(const char* path, struct stat64* buffer) {
  return cudajit_lxstat64(stat_ver_linux, path, buffer);
}

extern "C" int cudajit_xmknod(int, const char*, mode_t, dev_t*);
CUDAJIT_BIND(cudajit_xmknod, "__xmknod@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_mknod(const char* path, mode_t mode, dev_t device) {
  return cudajit_xmknod(mknod_ver_linux, path, mode, &device);
}

// mallinfo2 (glibc 2.33; LLVM's Process::GetMallocUsage): glibc's own where the process has it
// (looked up once), so the counts are exact; on older glibc, mallinfo's, whose int fields wrap
// past 2 GiB: read as unsigned they are exact up to 4 GiB, which is the best that glibc knows.
extern "C" struct mallinfo cudajit_mallinfo(void);
CUDAJIT_BIND(cudajit_mallinfo, "mallinfo@GLIBC_2.2.5");
using Mallinfo2 = struct mallinfo2 (*)(void);

CUDAJIT_SHIM struct mallinfo2 __wrap_mallinfo2(void) {
  static const auto glibc_mallinfo2 = reinterpret_cast<Mallinfo2>(glibc_function("mallinfo2"));
  if (glibc_mallinfo2) return glibc_mallinfo2();
  const struct mallinfo old = cudajit_mallinfo();
  struct mallinfo2 info;
  info.arena = static_cast<unsigned>(old.arena);
  info.ordblks = static_cast<unsigned>(old.ordblks);
  info.smblks = static_cast<unsigned>(old.smblks);
  info.hblks = static_cast<unsigned>(old.hblks);
  info.hblkhd = static_cast<unsigned>(old.hblkhd);
  info.usmblks = static_cast<unsigned>(old.usmblks);
  info.fsmblks = static_cast<unsigned>(old.fsmblks);
  info.uordblks = static_cast<unsigned>(old.uordblks);
  info.fordblks = static_cast<unsigned>(old.fordblks);
  info.keepcost = static_cast<unsigned>(old.keepcost);
  return info;
}

// --- GLIBC_2.32 ---------------------------------------------------------------------------------

// __libc_single_threaded (glibc 2.32): libstdc++'s inline code (shared_ptr's counts, ...) skips
// atomic instructions while it is true. Ours is always false: "maybe several threads", which is
// always correct, only never the shortcut.
extern "C" {
__attribute__((visibility("hidden"))) char __wrap___libc_single_threaded = 0;
}

// pthread_getattr_np and pthread_sigmask moved into libc in glibc 2.32 (as in 2.34 above).
extern "C" int cudajit_pthread_getattr_np(pthread_t, pthread_attr_t*);
CUDAJIT_BIND(cudajit_pthread_getattr_np, "pthread_getattr_np@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_pthread_getattr_np(pthread_t thread, pthread_attr_t* attr) {
  return cudajit_pthread_getattr_np(thread, attr);
}

extern "C" int cudajit_pthread_sigmask(int, const sigset_t*, sigset_t*);
CUDAJIT_BIND(cudajit_pthread_sigmask, "pthread_sigmask@GLIBC_2.2.5");
CUDAJIT_SHIM int __wrap_pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  return cudajit_pthread_sigmask(how, set, old);
}

// --- GLIBCXX_3.4.29 (GCC 11), CXXABI_1.3.13 (GCC 11) --------------------------------------------

// std::__throw_bad_array_new_length (GCC 11) throws std::bad_array_new_length, as
// __cxa_throw_bad_array_new_length (CXXABI_1.3.8) does.
CUDAJIT_SHIM [[noreturn]] void __wrap__ZSt28__throw_bad_array_new_lengthv(void) {
  __cxxabiv1::__cxa_throw_bad_array_new_length();
}

// std::stringbuf::str() const& (GCC 11, beside the new str() &&) is the old str() const: both
// return a copy of the buffer's string. The std::string comes back through the hidden first
// argument, whose address the function also returns (x86-64 psABI), hence void* here.
extern "C" void* cudajit_stringbuf_str_3_4_21(void* result, const void* self);
CUDAJIT_BIND(cudajit_stringbuf_str_3_4_21,
             "_ZNKSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE3strEv@GLIBCXX_3.4.21");
CUDAJIT_SHIM void* __wrap__ZNKRSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE3strEv(
    void* result, const void* self) {
  return cudajit_stringbuf_str_3_4_21(result, self);
}

// std::exception_ptr's reference count: GCC 11's headers inline the copy constructor and the
// destructor, which call _M_addref and _M_release (exported from GCC 11, CXXABI_1.3.13). The
// exported copy constructor (CXXABI_1.3.3) is _M_addref on a copy of the pointer: a copy made and
// never destroyed adds one reference. The exported destructor is _M_release itself (it drops a
// reference, frees the exception with the last and then clears the pointer).
extern "C" void cudajit_exception_ptr_copy(void* self, const void* other);
CUDAJIT_BIND(cudajit_exception_ptr_copy,
             "_ZNSt15__exception_ptr13exception_ptrC1ERKS0_@CXXABI_1.3.3");
extern "C" void cudajit_exception_ptr_destroy(void* self);
CUDAJIT_BIND(cudajit_exception_ptr_destroy,
             "_ZNSt15__exception_ptr13exception_ptrD1Ev@CXXABI_1.3.3");

CUDAJIT_SHIM void __wrap__ZNSt15__exception_ptr13exception_ptr9_M_addrefEv(void* self) {
  void* reference;  // an exception_ptr: one pointer
  cudajit_exception_ptr_copy(&reference, self);
}

CUDAJIT_SHIM void __wrap__ZNSt15__exception_ptr13exception_ptr10_M_releaseEv(void* self) {
  cudajit_exception_ptr_destroy(self);
}

// --- GLIBCXX_3.4.26 (GCC 9) ---------------------------------------------------------------------

// std::stringstream's default constructor: exported from GCC 9 on; before, the header called
// the constructor that takes the open mode, with in | out, which is what the new one does.
extern "C" void cudajit_stringstream_with_mode(void* self, int mode);
CUDAJIT_BIND(cudajit_stringstream_with_mode,
             "_ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEEC1ESt13_Ios_Openmode@"
             "GLIBCXX_3.4.21");
CUDAJIT_SHIM void __wrap__ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEEC1Ev(
    void* self) {
  cudajit_stringstream_with_mode(self, std::ios_base::in | std::ios_base::out);
}

// --- GLIBC_2.29: exp, log, log2, pow, exp2 without SVID error handling --------------------------

// glibc 2.29 gave these new versions that skip the old SVID "matherr" wrapper; the old versions
// (GLIBC_2.2.5) return the same values and set errno the same way (POSIX), only slower.
extern "C" double cudajit_exp(double);
CUDAJIT_BIND(cudajit_exp, "exp@GLIBC_2.2.5");
CUDAJIT_SHIM double __wrap_exp(double x) { return cudajit_exp(x); }

extern "C" double cudajit_exp2(double);
CUDAJIT_BIND(cudajit_exp2, "exp2@GLIBC_2.2.5");
CUDAJIT_SHIM double __wrap_exp2(double x) { return cudajit_exp2(x); }

extern "C" double cudajit_log(double);
CUDAJIT_BIND(cudajit_log, "log@GLIBC_2.2.5");
CUDAJIT_SHIM double __wrap_log(double x) { return cudajit_log(x); }

extern "C" double cudajit_log2(double);
CUDAJIT_BIND(cudajit_log2, "log2@GLIBC_2.2.5");
CUDAJIT_SHIM double __wrap_log2(double x) { return cudajit_log2(x); }

extern "C" double cudajit_pow(double, double);
CUDAJIT_BIND(cudajit_pow, "pow@GLIBC_2.2.5");
CUDAJIT_SHIM double __wrap_pow(double x, double y) { return cudajit_pow(x, y); }

// --- GLIBC_2.38, GLIBCXX_3.4.31 (GCC 13), CXXABI_1.3.15 (GCC 14): Debian 13's toolchain -------

// strtol and its kin as C23 reads them (glibc 2.38; with _GNU_SOURCE, as g++ always defines, the
// headers send every call there, and Debian 13's LLVM archives were built so). C23 adds one
// thing: base 0 or 2 also takes a "0b" or "0B" prefix before binary digits. The old versions
// (GLIBC_2.2.5) do the rest; the prefix is read here, the digits after it by the old function
// with base 2, so that overflow, errno and the end pointer stay glibc's.
extern "C" long cudajit_strtol(const char*, char**, int);
CUDAJIT_BIND(cudajit_strtol, "strtol@GLIBC_2.2.5");
extern "C" unsigned long cudajit_strtoul(const char*, char**, int);
CUDAJIT_BIND(cudajit_strtoul, "strtoul@GLIBC_2.2.5");
extern "C" long long cudajit_strtoll(const char*, char**, int);
CUDAJIT_BIND(cudajit_strtoll, "strtoll@GLIBC_2.2.5");
extern "C" unsigned long long cudajit_strtoull(const char*, char**, int);
CUDAJIT_BIND(cudajit_strtoull, "strtoull@GLIBC_2.2.5");

// Where a C23 binary prefix starts in `text` for `base` (after blanks and a sign, "0b" or "0B"
// followed by a binary digit), else nullptr.
static const char* binary_prefix(const char* text, int base) {
  if (base != 0 && base != 2) return nullptr;
  const char* p = text;
  while (*p == ' ' || (*p >= '\t' && *p <= '\r')) ++p;
  if (*p == '+' || *p == '-') ++p;
  if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') && (p[2] == '0' || p[2] == '1')) return p;
  return nullptr;
}

// The old function on `text` with the prefix removed ("-0b101" read as "-101" in base 2): the
// sign stays where the old function reads it; the end pointer is mapped back into `text`.
template <typename T, typename Old>
static T from_binary(const char* text, const char* prefix, char** end, Old old) {
  const size_t before = static_cast<size_t>(prefix - text);
  size_t digits = 0;
  while (prefix[2 + digits] == '0' || prefix[2 + digits] == '1') ++digits;
  char* copy = static_cast<char*>(malloc(before + digits + 1));
  if (!copy) return old(text, end, 2);  // reads "0" and stops at the 'b', as C17 would
  memcpy(copy, text, before);
  memcpy(copy + before, prefix + 2, digits);
  copy[before + digits] = '\0';
  char* copy_end = copy;
  const T value = old(copy, &copy_end, 2);
  const int saved = errno;
  const ptrdiff_t read = copy_end - copy - static_cast<ptrdiff_t>(before);
  if (end) *end = const_cast<char*>(read > 0 ? prefix + 2 + read : text);
  free(copy);
  errno = saved;
  return value;
}

CUDAJIT_SHIM long __wrap___isoc23_strtol(const char* text, char** end, int base) {
  const char* prefix = binary_prefix(text, base);
  return prefix ? from_binary<long>(text, prefix, end, cudajit_strtol)
                : cudajit_strtol(text, end, base);
}

CUDAJIT_SHIM unsigned long __wrap___isoc23_strtoul(const char* text, char** end, int base) {
  const char* prefix = binary_prefix(text, base);
  return prefix ? from_binary<unsigned long>(text, prefix, end, cudajit_strtoul)
                : cudajit_strtoul(text, end, base);
}

CUDAJIT_SHIM long long __wrap___isoc23_strtoll(const char* text, char** end, int base) {
  const char* prefix = binary_prefix(text, base);
  return prefix ? from_binary<long long>(text, prefix, end, cudajit_strtoll)
                : cudajit_strtoll(text, end, base);
}

CUDAJIT_SHIM unsigned long long __wrap___isoc23_strtoull(const char* text, char** end, int base) {
  const char* prefix = binary_prefix(text, base);
  return prefix ? from_binary<unsigned long long>(text, prefix, end, cudajit_strtoull)
                : cudajit_strtoull(text, end, base);
}

// std::string::_M_replace_cold (GCC 13): the out-of-line part of replace() where the new text
// lies inside the string itself. It uses no member of the string: the same moves and copies as
// libstdc++'s basic_string.tcc, on the characters at p.
CUDAJIT_SHIM void __wrap__ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE15_M_replace_coldEPcmPKcmm(
    void* /*self*/, char* p, size_t len1, const char* s, size_t len2, size_t how_much) {
  if (len2 && len2 <= len1) memmove(p, s, len2);
  if (how_much && len1 != len2) memmove(p + len2, p + len1, how_much);
  if (len2 > len1) {
    if (s + len2 <= p + len1) {
      memmove(p, s, len2);
    } else if (s >= p + len1) {
      const size_t offset = static_cast<size_t>(s - p) + (len2 - len1);
      memcpy(p, p + offset, len2);
    } else {
      const size_t left = static_cast<size_t>((p + len1) - s);
      memmove(p, s, left);
      memcpy(p + left, p + len2, len2 - left);
    }
  }
}

// __cxa_call_terminate (GCC 14 calls it where an exception leaves a noexcept function): the
// exception is caught, as a handler would, then std::terminate, which is what it does.
CUDAJIT_SHIM [[noreturn]] void __wrap___cxa_call_terminate(void* exception) noexcept {
  if (exception) __cxxabiv1::__cxa_begin_catch(exception);
  std::terminate();
}

// --- GLIBC_2.43: Debian unstable's glibc ----------------------------------------------------------

// sqrtf got a new version in glibc 2.43; the old one (GLIBC_2.2.5) returns the same values.
extern "C" float cudajit_sqrtf(float);
CUDAJIT_BIND(cudajit_sqrtf, "sqrtf@GLIBC_2.2.5");
CUDAJIT_SHIM float __wrap_sqrtf(float x) { return cudajit_sqrtf(x); }
