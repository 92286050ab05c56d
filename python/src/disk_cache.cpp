#include "disk_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

namespace cudajit::python::disk_cache {

namespace {

constexpr const char* kMagic = "cudajit-kernel-cache 1\n";

std::atomic<std::size_t> hits{0};
std::atomic<std::size_t> misses{0};

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
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

}  // namespace

std::string file_for(const std::string& directory, const std::string& name,
                     const std::string& key) {
  std::string safe;
  for (const char c : name.substr(0, 64)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    safe += plain ? c : '_';
  }
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return (std::filesystem::path(directory) / (safe + "-" + hash + ".ptxcache")).string();
}

std::optional<runtime::KernelCode> load(const std::string& directory, const std::string& name,
                                        const std::string& key) {
  std::ifstream file(file_for(directory, name, key), std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string magic = kMagic;
  runtime::KernelCode code;
  std::string stored_key;
  std::size_t at = magic.size();
  if (!file || text.compare(0, magic.size(), magic) != 0 || !read_field(text, at, stored_key) ||
      stored_key != key || !read_field(text, at, code.ptx) ||
      !read_field(text, at, code.entry_name) || at != text.size()) {
    ++misses;
    return std::nullopt;
  }
  ++hits;
  return code;
}

std::string store(const std::string& directory, const std::string& name, const std::string& key,
                  const runtime::KernelCode& code) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) return "cannot create " + directory + ": " + error.message();
  const std::string path = file_for(directory, name, key);
  static std::atomic<unsigned> counter{0};
  const std::string aside =
      path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  std::string text = kMagic;
  write_field(text, key);
  write_field(text, code.ptx);
  write_field(text, code.entry_name);
  {
    std::ofstream file(aside, std::ios::binary | std::ios::trunc);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    file.close();
    if (!file) {
      std::filesystem::remove(aside, error);
      return "cannot write " + aside;
    }
  }
  std::filesystem::rename(aside, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(aside, ignored);
    return "cannot rename " + aside + " to " + path + ": " + error.message();
  }
  return "";
}

Counts counts() { return {hits.load(), misses.load()}; }

void reset_counts() {
  hits = 0;
  misses = 0;
}

}  // namespace cudajit::python::disk_cache
