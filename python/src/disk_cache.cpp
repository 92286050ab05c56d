#include "disk_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace cudajit::python::disk_cache {

namespace {

constexpr const char* kMagic = "cudajit-kernel-cache 4\n";

std::atomic<std::size_t> hits{0};
std::atomic<std::size_t> misses{0};

// FNV-1a over everything before the checksum field: any changed byte changes it.
std::string checksum_of(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

// Length-prefixed fields: "<size>\n<bytes>\n".
void write_field(std::string& out, const std::string& field) {
  out += std::to_string(field.size()) + "\n" + field + "\n";
}

bool read_field(const std::string& in, std::size_t& at, std::string& field) {
  const std::size_t newline = in.find('\n', at);
  if (newline == std::string::npos || newline == at) return false;
  std::size_t size = 0;
  for (std::size_t i = at; i < newline; ++i) {
    if (in[i] < '0' || in[i] > '9' || size > in.size()) return false;
    size = size * 10 + static_cast<std::size_t>(in[i] - '0');
  }
  const std::size_t start = newline + 1;
  if (size > in.size() || start + size >= in.size() || in[start + size] != '\n') return false;
  field.assign(in, start, size);
  at = start + size + 1;
  return true;
}

// directory/name, as paths join ("dir/" and "dir" alike).
std::string join_path(const std::string& directory, const std::string& name) {
  if (directory.empty()) return name;
  return directory.back() == '/' ? directory + name : directory + "/" + name;
}

// mkdir -p: `path` and every directory above it that is missing. "" or why not. (POSIX,
// not std::filesystem: the wheel's libraries need no libstdc++ newer than GCC 8's.)
std::string make_directories(const std::string& path) {
  for (std::size_t end = 1; end <= path.size(); ++end) {
    if (end < path.size() && path[end] != '/') continue;
    const std::string part = path.substr(0, end);
    if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST) return std::strerror(errno);
  }
  struct stat status;
  if (::stat(path.c_str(), &status) != 0) return std::strerror(errno);
  return S_ISDIR(status.st_mode) ? "" : "not a directory";
}

// The kernel's name as file names take it: letters and digits, the rest '_', 64 at most.
std::string safe_name(const std::string& name) {
  std::string safe;
  for (const char c : name.substr(0, 64)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    safe += plain ? c : '_';
  }
  return safe;
}

// Writes `text` to `path` whole or not at all (written aside, then renamed). "" or why not.
std::string write_whole(const std::string& path, const std::string& text) {
  static std::atomic<unsigned> counter{0};
  const std::string aside =
      path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream file(aside, std::ios::binary | std::ios::trunc);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    file.close();
    if (!file) {
      ::unlink(aside.c_str());
      return "cannot write " + aside;
    }
  }
  if (::rename(aside.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(aside.c_str());
    return "cannot rename " + aside + " to " + path + ": " + why;
  }
  return "";
}

constexpr const char* kIndexMagic = "cudajit-kernel-cache-index 1\n";

// Lists `entry` (a file name in the directory) in the index of `name`'s entries, unless it
// is there already (then the index is left as it is, its time too). Another format or an
// unreadable index is started anew: the index is a listing, never read to load a kernel.
std::string add_to_index(const std::string& path, const std::string& entry) {
  std::string text;
  struct stat status;
  if (::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode)) {
    std::ifstream file(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  if (text.compare(0, std::strlen(kIndexMagic), kIndexMagic) != 0 || text.back() != '\n')
    text = kIndexMagic;
  if (text.find("\n" + entry + "\n") != std::string::npos) return "";
  return write_whole(path, text + entry + "\n");
}

}  // namespace

std::string file_for(const std::string& directory, const std::string& name, const std::string& key,
                     bool host) {
  const char* suffix = host ? ".hostcache" : ".ptxcache";
  return join_path(directory, safe_name(name) + "-" + checksum_of(key) + suffix);
}

std::string index_for(const std::string& directory, const std::string& name, bool host) {
  return join_path(directory, safe_name(name) + (host ? ".hostindex" : ".ptxindex"));
}

std::optional<runtime::KernelCode> load(const std::string& directory, const std::string& name,
                                        const std::string& key, bool host, std::string* warning) {
  const std::string path = file_for(directory, name, key, host);
  auto miss = [&](const std::string& why) -> std::optional<runtime::KernelCode> {
    if (warning && !why.empty()) *warning = why;
    ++misses;
    return std::nullopt;
  };
  // Opening a FIFO would wait for a writer: look at what is there first.
  struct stat status;
  if (::stat(path.c_str(), &status) != 0) return miss("");
  if (!S_ISREG(status.st_mode))
    return miss(path + " is not a regular file; the kernel is compiled instead");
  std::ifstream file(path, std::ios::binary);
  if (!file) return miss("cannot read " + path + "; the kernel is compiled instead");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string magic = kMagic;
  runtime::KernelCode code;
  std::string stored_key, checksum, cooperative, per_thread, shared;
  std::string& body_code = host ? code.host_object : code.ptx;
  std::size_t at = magic.size();
  const bool whole = file.good() || file.eof();
  auto flag = [](const std::string& f) { return f == "0" || f == "1"; };
  // Another format or another key (a name collision): a miss. Past the key, anything
  // unreadable is damage, said as the checksum's failure is.
  if (!whole || text.compare(0, magic.size(), magic) != 0 || !read_field(text, at, stored_key) ||
      stored_key != key)
    return miss("");
  const std::string damaged =
      path + " is damaged (its checksum does not match); the kernel is compiled instead";
  if (!read_field(text, at, body_code) || !read_field(text, at, code.entry_name) ||
      !read_field(text, at, cooperative) || !read_field(text, at, per_thread) ||
      !read_field(text, at, shared) || !flag(cooperative) || !flag(per_thread) || shared.empty() ||
      shared.size() > 18 || shared.find_first_not_of("0123456789") != std::string::npos)
    return miss(damaged);
  code.cooperative = cooperative == "1";
  code.host_per_thread = per_thread == "1";
  code.host.cooperative = code.cooperative;
  code.host.static_shared_bytes = std::stoull(shared);
  const std::size_t body = at;
  if (!read_field(text, at, checksum) || at != text.size() ||
      checksum != checksum_of(std::string_view(text).substr(0, body)))
    return miss(damaged);
  ++hits;
  return code;
}

std::string store(const std::string& directory, const std::string& name, const std::string& key,
                  bool host, const runtime::KernelCode& code) {
  if (std::string why = make_directories(directory); !why.empty())
    return "cannot create " + directory + ": " + why;
  const std::string path = file_for(directory, name, key, host);
  std::string text = kMagic;
  write_field(text, key);
  write_field(text, host ? code.host_object : code.ptx);
  write_field(text, code.entry_name);
  write_field(text, code.cooperative ? "1" : "0");
  write_field(text, code.host_per_thread ? "1" : "0");
  write_field(text, std::to_string(code.host.static_shared_bytes));
  write_field(text, checksum_of(text));
  if (std::string why = write_whole(path, text); !why.empty()) return why;
  return add_to_index(index_for(directory, name, host), path.substr(path.rfind('/') + 1));
}

Counts counts() { return {hits.load(), misses.load()}; }

void reset_counts() {
  hits = 0;
  misses = 0;
}

}  // namespace cudajit::python::disk_cache
