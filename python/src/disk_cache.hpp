// Kernels on disk (jit(cache=True)): the PTX of a kernel (`host`: the cpu device's object
// file) in a file of its own in the cache directory (an entry), and per kernel name an index
// listing its entries' file names, as Numba keeps an index and a data file per entry; loads
// never read the index (a listing for tools and people). Entries are keyed as the in-memory
// CodeCache (kernel IR, argument types, options, target) plus compiler_identity() (and for host
// code the host CPU), so that a new cudajit, LLVM, toolkit or machine compiles anew. A
// later process loads the code instead of compiling. The file holds the whole key and a checksum
// over everything in it: a name collision or a damaged file is a miss, never another kernel's code
// or damaged code.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "cudajit/runtime/device.hpp"

namespace cudajit::python::disk_cache {

// The kernel stored for `key`, if `directory` has it. Something other than a
// readable file where the entry should be (a directory, a FIFO, a file it may
// not read) is a miss too, and `warning` says what.
std::optional<runtime::KernelCode> load(const std::string& directory, const std::string& name,
                                        const std::string& key, bool host, std::string* warning);

// Stores `code` (its PTX or host object, entry name and flags) for `key`; the file appears
// whole or not at all (written aside, then renamed), then is listed in the index of `name`'s
// entries. Returns why it could not, or "".
std::string store(const std::string& directory, const std::string& name, const std::string& key,
                  bool host, const runtime::KernelCode& code);

// The file `key` goes to: "<name>-<hash of key>.ptxcache" (".hostcache") in `directory`.
std::string file_for(const std::string& directory, const std::string& name, const std::string& key,
                     bool host);

// The index of `name`'s entries: "<name>.ptxindex" (".hostindex") in `directory`, a header
// line, then an entry's file name a line.
std::string index_for(const std::string& directory, const std::string& name, bool host);

struct Counts {
  std::size_t hits = 0, misses = 0;
};
Counts counts();
void reset_counts();

}  // namespace cudajit::python::disk_cache
