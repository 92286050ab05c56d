// cudajit_glibc_compat_tests: each shim of support/glibc_compat.cpp against the function it
// stands in for. The executable links the shims' object without -Wl,--wrap, so a test calls
// both: __wrap_X (which runs through the old versions that glibc keeps for compatibility) and X
// itself, and compares results and errno.
#define CATCH_CONFIG_MAIN
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <thread>

extern "C" {
uint32_t __wrap_arc4random(void);
long __wrap___isoc23_strtol(const char*, char**, int);
unsigned long __wrap___isoc23_strtoul(const char*, char**, int);
long long __wrap___isoc23_strtoll(const char*, char**, int);
unsigned long long __wrap___isoc23_strtoull(const char*, char**, int);
void __wrap__ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE15_M_replace_coldEPcmPKcmm(
    void*, char*, size_t, const char*, size_t, size_t);
float __wrap_sqrtf(float);
void __wrap__ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE(void*, void*);
int __wrap_pthread_create(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
int __wrap_pthread_join(pthread_t, void**);
int __wrap_pthread_once(pthread_once_t*, void (*)(void));
int __wrap_pthread_rwlock_rdlock(pthread_rwlock_t*);
int __wrap_pthread_rwlock_wrlock(pthread_rwlock_t*);
int __wrap_pthread_rwlock_unlock(pthread_rwlock_t*);
int __wrap_pthread_attr_getstack(const pthread_attr_t*, void**, size_t*);
int __wrap_pthread_cond_clockwait(pthread_cond_t*, pthread_mutex_t*, clockid_t,
                                  const struct timespec*);
void* __wrap_dlopen(const char*, int);
void* __wrap_dlsym(void*, const char*);
int __wrap_dlclose(void*);
char* __wrap_dlerror(void);
int __wrap_dladdr(const void*, Dl_info*);
int __wrap_stat(const char*, struct stat*);
int __wrap_fstat(int, struct stat*);
int __wrap_lstat(const char*, struct stat*);
int __wrap_stat64(const char*, struct stat64*);
int __wrap_fstat64(int, struct stat64*);
int __wrap_lstat64(const char*, struct stat64*);
int __wrap_mknod(const char*, mode_t, dev_t);
struct mallinfo2 __wrap_mallinfo2(void);
extern char __wrap___libc_single_threaded;
int __wrap_pthread_getattr_np(pthread_t, pthread_attr_t*);
int __wrap_pthread_sigmask(int, const sigset_t*, sigset_t*);
[[noreturn]] void __wrap__ZSt28__throw_bad_array_new_lengthv(void);
void* __wrap__ZNKRSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE3strEv(void*, const void*);
void __wrap__ZNSt15__exception_ptr13exception_ptr9_M_addrefEv(void*);
void __wrap__ZNSt15__exception_ptr13exception_ptr10_M_releaseEv(void*);
int cudajit_cond_clockwait_fallback(pthread_cond_t*, pthread_mutex_t*, clockid_t,
                                    const struct timespec*);
void __wrap__ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEEC1Ev(void*);
double __wrap_exp(double);
double __wrap_exp2(double);
double __wrap_log(double);
double __wrap_log2(double);
double __wrap_pow(double, double);
}

namespace {

// A scratch directory, removed with what the test left in it.
struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/cudajit-glibc-compat-XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path = name;
  }
  ~TempDir() {
    std::string command = "rm -rf '" + path + "'";
    if (std::system(command.c_str()) != 0) WARN("could not remove " << path);
  }
};

template <class Stat>
void check_same(const Stat& a, const Stat& b) {
  CHECK(a.st_dev == b.st_dev);
  CHECK(a.st_ino == b.st_ino);
  CHECK(a.st_mode == b.st_mode);
  CHECK(a.st_nlink == b.st_nlink);
  CHECK(a.st_size == b.st_size);
  CHECK(a.st_mtim.tv_sec == b.st_mtim.tv_sec);
  CHECK(a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
}

}  // namespace

TEST_CASE("arc4random gives 32 random bits and keeps errno", "[glibc_compat]") {
  errno = 1234;
  uint32_t seen_or = 0, seen_and = ~0u;
  for (int i = 0; i < 64; ++i) {
    const uint32_t value = __wrap_arc4random();
    seen_or |= value;
    seen_and &= value;
  }
  CHECK(errno == 1234);
  CHECK(seen_or == ~0u);  // every bit set at least once in 64 draws (fails with p ~ 32 / 2^64)
  CHECK(seen_and == 0u);
}

TEST_CASE("condition_variable::wait waits and wakes", "[glibc_compat]") {
  std::mutex mutex;
  std::condition_variable ready;
  bool done = false;
  std::thread other([&] {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    ready.notify_one();
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (!done) __wrap__ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE(&ready, &lock);
    CHECK(lock.owns_lock());
  }
  other.join();
}

namespace {
int once_calls = 0;
void count_once() { ++once_calls; }
void* add_one(void* value) { return static_cast<char*>(value) + 1; }
}  // namespace

TEST_CASE("pthread_create and pthread_join", "[glibc_compat]") {
  static char text[] = "ab";
  pthread_t thread;
  REQUIRE(__wrap_pthread_create(&thread, nullptr, add_one, text) == 0);
  void* result = nullptr;
  CHECK(__wrap_pthread_join(thread, &result) == 0);
  CHECK(result == text + 1);
  CHECK(__wrap_pthread_join(pthread_self(), nullptr) == EDEADLK);
}

TEST_CASE("pthread_once, rwlocks, attributes and the signal mask", "[glibc_compat]") {
  pthread_once_t once = PTHREAD_ONCE_INIT;
  CHECK(__wrap_pthread_once(&once, count_once) == 0);
  CHECK(__wrap_pthread_once(&once, count_once) == 0);
  CHECK(once_calls == 1);

  pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
  CHECK(__wrap_pthread_rwlock_rdlock(&lock) == 0);
  CHECK(__wrap_pthread_rwlock_rdlock(&lock) == 0);  // readers share
  CHECK(pthread_rwlock_trywrlock(&lock) == EBUSY);
  CHECK(__wrap_pthread_rwlock_unlock(&lock) == 0);
  CHECK(__wrap_pthread_rwlock_unlock(&lock) == 0);
  CHECK(__wrap_pthread_rwlock_wrlock(&lock) == 0);
  CHECK(pthread_rwlock_tryrdlock(&lock) == EBUSY);
  CHECK(__wrap_pthread_rwlock_unlock(&lock) == 0);

  pthread_attr_t mine, theirs;
  REQUIRE(__wrap_pthread_getattr_np(pthread_self(), &mine) == 0);
  REQUIRE(pthread_getattr_np(pthread_self(), &theirs) == 0);
  void *stack_a = nullptr, *stack_b = nullptr;
  size_t size_a = 0, size_b = 0;
  CHECK(__wrap_pthread_attr_getstack(&mine, &stack_a, &size_a) == 0);
  CHECK(pthread_attr_getstack(&theirs, &stack_b, &size_b) == 0);
  CHECK(stack_a == stack_b);
  CHECK(size_a == size_b);
  CHECK(size_a > 0);
  pthread_attr_destroy(&mine);
  pthread_attr_destroy(&theirs);

  sigset_t block, before, during;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  REQUIRE(__wrap_pthread_sigmask(SIG_BLOCK, &block, &before) == 0);
  REQUIRE(pthread_sigmask(SIG_SETMASK, nullptr, &during) == 0);
  CHECK(sigismember(&during, SIGUSR2) == 1);
  CHECK(__wrap_pthread_sigmask(SIG_SETMASK, &before, nullptr) == 0);
  CHECK(__wrap_pthread_sigmask(12345, &block, nullptr) == EINVAL);
}

TEST_CASE("pthread_cond_clockwait times out on the clock it is given", "[glibc_compat]") {
  // glibc's own (2.30 and later, found at run time), and the fallback older glibc gets.
  auto* clockwait = GENERATE(&__wrap_pthread_cond_clockwait, &cudajit_cond_clockwait_fallback);
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&mutex);
  for (clockid_t clock : {CLOCK_MONOTONIC, CLOCK_REALTIME}) {
    struct timespec deadline;
    clock_gettime(clock, &deadline);
    deadline.tv_nsec += 20'000'000;  // 20 ms
    if (deadline.tv_nsec >= 1'000'000'000) {
      deadline.tv_nsec -= 1'000'000'000;
      deadline.tv_sec += 1;
    }
    const auto start = std::chrono::steady_clock::now();
    int result;
    do {
      result = clockwait(&cond, &mutex, clock, &deadline);
    } while (result == 0);  // spurious wake-ups
    CHECK(result == ETIMEDOUT);
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(19));
    struct timespec now;
    clock_gettime(clock, &now);
    CHECK((now.tv_sec > deadline.tv_sec ||
           (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)));
  }
  struct timespec past = {0, 0};
  CHECK(clockwait(&cond, &mutex, CLOCK_MONOTONIC, &past) == ETIMEDOUT);
  CHECK(clockwait(&cond, &mutex, CLOCK_PROCESS_CPUTIME_ID, &past) == EINVAL);
  struct timespec bad = {0, 1'000'000'000};
  CHECK(clockwait(&cond, &mutex, CLOCK_MONOTONIC, &bad) == EINVAL);
  pthread_mutex_unlock(&mutex);
}

TEST_CASE("dlopen, dlsym, dladdr, dlerror, dlclose", "[glibc_compat]") {
  void* libm = __wrap_dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  REQUIRE(libm != nullptr);
  void* cos_address = __wrap_dlsym(libm, "cos");
  CHECK(cos_address == dlsym(libm, "cos"));
  Dl_info info;
  REQUIRE(__wrap_dladdr(cos_address, &info) != 0);
  CHECK(std::string(info.dli_fname).find("libm.so.6") != std::string::npos);
  CHECK(__wrap_dlsym(libm, "no_such_symbol_anywhere") == nullptr);
  const char* error = __wrap_dlerror();
  REQUIRE(error != nullptr);
  CHECK(std::string(error).find("no_such_symbol_anywhere") != std::string::npos);
  CHECK(__wrap_dlerror() == nullptr);  // read once
  CHECK(__wrap_dlclose(libm) == 0);
  CHECK(__wrap_dlopen("libno-such-library.so", RTLD_NOW) == nullptr);
  CHECK(__wrap_dlerror() != nullptr);
}

TEST_CASE("stat, fstat, lstat (and 64) and mknod", "[glibc_compat]") {
  TempDir dir;
  const std::string file = dir.path + "/file", link = dir.path + "/link";
  const int fd = open(file.c_str(), O_CREAT | O_WRONLY, 0640);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, "twelve bytes", 12) == 12);
  REQUIRE(symlink(file.c_str(), link.c_str()) == 0);

  struct stat mine, theirs;
  REQUIRE(__wrap_stat(link.c_str(), &mine) == 0);
  REQUIRE(stat(link.c_str(), &theirs) == 0);
  check_same(mine, theirs);
  CHECK(S_ISREG(mine.st_mode));
  CHECK(mine.st_size == 12);
  REQUIRE(__wrap_lstat(link.c_str(), &mine) == 0);
  REQUIRE(lstat(link.c_str(), &theirs) == 0);
  check_same(mine, theirs);
  CHECK(S_ISLNK(mine.st_mode));
  REQUIRE(__wrap_fstat(fd, &mine) == 0);
  REQUIRE(fstat(fd, &theirs) == 0);
  check_same(mine, theirs);

  struct stat64 mine64, theirs64;
  REQUIRE(__wrap_stat64(link.c_str(), &mine64) == 0);
  REQUIRE(stat64(link.c_str(), &theirs64) == 0);
  check_same(mine64, theirs64);
  REQUIRE(__wrap_lstat64(link.c_str(), &mine64) == 0);
  REQUIRE(lstat64(link.c_str(), &theirs64) == 0);
  check_same(mine64, theirs64);
  REQUIRE(__wrap_fstat64(fd, &mine64) == 0);
  REQUIRE(fstat64(fd, &theirs64) == 0);
  check_same(mine64, theirs64);
  close(fd);

  const std::string missing = dir.path + "/missing";
  errno = 0;
  CHECK(__wrap_stat(missing.c_str(), &mine) == -1);
  CHECK(errno == ENOENT);
  errno = 0;
  CHECK(__wrap_lstat64(missing.c_str(), &mine64) == -1);
  CHECK(errno == ENOENT);
  errno = 0;
  CHECK(__wrap_fstat(-1, &mine) == -1);
  CHECK(errno == EBADF);

  const std::string fifo = dir.path + "/fifo";
  REQUIRE(__wrap_mknod(fifo.c_str(), S_IFIFO | 0600, 0) == 0);
  REQUIRE(stat(fifo.c_str(), &theirs) == 0);
  CHECK(S_ISFIFO(theirs.st_mode));
  errno = 0;
  CHECK(__wrap_mknod(fifo.c_str(), S_IFIFO | 0600, 0) == -1);
  CHECK(errno == EEXIST);
}

TEST_CASE("mallinfo2 reports what glibc's does", "[glibc_compat]") {
  (void)__wrap_mallinfo2();                // the first call looks glibc's up
  void* volatile block = malloc(1 << 20);  // volatile: the allocation stays
  const struct mallinfo2 mine = __wrap_mallinfo2();
  const struct mallinfo2 theirs = mallinfo2();
  CHECK(mine.arena == theirs.arena);
  CHECK(mine.hblkhd == theirs.hblkhd);
  CHECK(mine.uordblks == theirs.uordblks);
  CHECK(mine.uordblks + mine.hblkhd >= (1 << 20));
  free(block);
}

TEST_CASE("__libc_single_threaded says maybe several threads", "[glibc_compat]") {
  CHECK(__wrap___libc_single_threaded == 0);
}

TEST_CASE("libstdc++ 11's symbols through their older twins", "[glibc_compat]") {
  CHECK_THROWS_AS(__wrap__ZSt28__throw_bad_array_new_lengthv(), std::bad_array_new_length);

  std::stringbuf buffer("some text");
  alignas(std::string) unsigned char storage[sizeof(std::string)];
  auto* text = static_cast<std::string*>(
      __wrap__ZNKRSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE3strEv(storage, &buffer));
  CHECK(static_cast<void*>(text) == storage);
  CHECK(*text == "some text");
  CHECK(buffer.str() == "some text");  // a copy: the buffer keeps its text
  text->~basic_string();

  // exception_ptr's count: the exception is destroyed with its last reference.
  static int alive = 0;
  struct Tracked {
    Tracked() { ++alive; }
    Tracked(const Tracked&) { ++alive; }
    ~Tracked() { --alive; }
  };
  {
    std::exception_ptr first = std::make_exception_ptr(Tracked{});
    REQUIRE(alive == 1);
    __wrap__ZNSt15__exception_ptr13exception_ptr9_M_addrefEv(&first);  // now two references
    std::exception_ptr second;
    memcpy(static_cast<void*>(&second), &first, sizeof first);  // ... and `second` owns one
    first = nullptr;
    CHECK(alive == 1);
    __wrap__ZNSt15__exception_ptr13exception_ptr10_M_releaseEv(&second);  // the last
    CHECK(alive == 0);
    CHECK(second == nullptr);  // cleared, so its destructor does nothing
  }
  CHECK(alive == 0);
}

TEST_CASE("std::stringstream's default constructor through the one with the open mode",
          "[glibc_compat]") {
  alignas(std::stringstream) unsigned char storage[sizeof(std::stringstream)];
  __wrap__ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEEC1Ev(storage);
  auto& stream = *reinterpret_cast<std::stringstream*>(storage);
  stream << "x = " << 42;
  int read = 0;
  std::string word, equals;
  stream >> word >> equals >> read;  // in | out: what was written reads back
  CHECK(word == "x");
  CHECK(read == 42);
  stream.~basic_stringstream();
}

TEST_CASE("exp, exp2, log, log2 and pow give glibc's values and errno", "[glibc_compat]") {
  for (double x : {-745.2, -1.5, -0.0, 0.0, 1e-310, 0.5, 1.0, 2.0, 709.7, 710.0, 1e308}) {
    errno = 0;
    const double expected = exp(x);
    const int expected_errno = errno;
    errno = 0;
    CHECK(__wrap_exp(x) == expected);
    CHECK(errno == expected_errno);
    CHECK(__wrap_exp2(x) == exp2(x));
    if (x > 0) {
      CHECK(__wrap_log(x) == log(x));
      CHECK(__wrap_log2(x) == log2(x));
    }
    const double root = __wrap_pow(x, 0.5);
    CHECK((root == pow(x, 0.5) || (std::isnan(root) && std::isnan(pow(x, 0.5)))));
  }
  errno = 0;
  CHECK(std::isinf(__wrap_log(0.0)));
  CHECK(errno == ERANGE);  // a pole error, as POSIX says
  errno = 0;
  CHECK(std::isnan(__wrap_log(-1.0)));
  CHECK(errno == EDOM);
  errno = 0;
  CHECK(std::isinf(__wrap_exp(1000.0)));
  CHECK(errno == ERANGE);
  CHECK(__wrap_pow(2.0, 10.0) == 1024.0);
}

TEST_CASE("C23's strtol family: the old functions, and the 0b prefix read here", "[glibc_compat]") {
  char* end = nullptr;
  const char* decimal = "  -1234xyz";
  CHECK(__wrap___isoc23_strtol(decimal, &end, 10) == -1234);
  CHECK(end == decimal + 7);
  CHECK(__wrap___isoc23_strtoul("0x1f", &end, 0) == 31ul);
  CHECK(__wrap___isoc23_strtoll("0777", &end, 0) == 0777ll);
  const char* binary = " -0b101z";
  CHECK(__wrap___isoc23_strtol(binary, &end, 0) == -5);
  CHECK(end == binary + 7);
  CHECK(__wrap___isoc23_strtoull("0B11", &end, 2) == 3ull);
  const char* no_digit = "0b2";  // no binary digit after the prefix: "0", stopping at the b
  CHECK(__wrap___isoc23_strtol(no_digit, &end, 0) == 0);
  CHECK(end == no_digit + 1);
  errno = 0;
  CHECK(__wrap___isoc23_strtoll("99999999999999999999", &end, 10) == LLONG_MAX);
  CHECK(errno == ERANGE);
  CHECK(__wrap_sqrtf(2.0f) == sqrtf(2.0f));
}

TEST_CASE("std::string's cold replace moves text that lies inside the string", "[glibc_compat]") {
  // replace(pos, len1, s, len2) where s points into the string itself, as basic_string calls it
  // after making room: each case against std::string's own result.
  struct Case { size_t pos, len1, from, len2; };
  for (Case c : {Case{0, 2, 4, 2}, Case{1, 1, 3, 4}, Case{2, 4, 0, 2}, Case{0, 1, 1, 5}}) {
    std::string expected = "abcdefghij";
    const std::string source = expected.substr(c.from, c.len2);
    expected.replace(c.pos, c.len1, source);
    std::string text = "abcdefghij";
    text.resize(text.size() + 8);
    char* p = text.data() + c.pos;
    const size_t how_much = 10 - c.pos - c.len1;
    const char* s = text.data() + c.from;
    // As _M_replace does before the cold call when the text grows: the source, if it lies past
    // the replaced part, is found after the tail moves; the caller passes its original place.
    __wrap__ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE15_M_replace_coldEPcmPKcmm(
        &text, p, c.len1, s, c.len2, how_much);
    text.resize(10 - c.len1 + c.len2);
    CHECK(text == expected);
  }
}
