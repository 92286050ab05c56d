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

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

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
