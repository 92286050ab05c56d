// PTX modules -> one module. Works on the text: each module is cut into its top-level
// statements (directives, variables, functions), each statement is classified by its
// linkage and the symbol it declares, and the statements are written out again after one
// header, less the declarations that other modules define, with colliding internal names
// and .file numbers made unique per module.
#include "ptx_linker.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>

#if CUDAJIT_SIM_HAVE_ZSTD
#include <zstd.h>
#endif

namespace cudajit::sim::link {

namespace {

bool ident_start(char c) { return std::isalpha(uint8_t(c)) || c == '_' || c == '$' || c == '%'; }
bool ident_char(char c) { return std::isalnum(uint8_t(c)) || c == '_' || c == '$'; }

// Calls `on_word(begin, end)` for each word outside comments and strings: identifiers,
// directives (".func") and numbers. `on_other(i)` sees every other character position.
template <class OnWord>
void scan_words(const std::string& s, OnWord&& on_word) {
  size_t i = 0, n = s.size();
  while (i < n) {
    char c = s[i];
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 2;
    } else if (c == '"') {
      for (++i; i < n && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
    } else if (ident_start(c) || c == '.' || std::isdigit(uint8_t(c))) {
      size_t start = i++;
      while (i < n && (ident_char(s[i]) || s[i] == '.')) ++i;
      on_word(start, i);
    } else {
      ++i;
    }
  }
}

enum class Kind { Version, Target, AddressSize, File, Section, Function, Variable, Other };

struct Statement {
  std::string text;
  Kind kind = Kind::Other;
  std::string name;  // the symbol a function or variable statement declares
  bool is_extern = false, is_visible = false, is_weak = false, has_body = false;
  bool is_shared = false;
};

// Header directives end at the end of their line; everything else at ';' or at the brace
// that closes its body (an initialiser's braces are not a body: its statement ends at ';').
std::vector<Statement> split(const std::string& s) {
  std::vector<Statement> out;
  size_t i = 0, n = s.size();
  auto skip_space_and_comments = [&] {
    for (;;) {
      while (i < n && std::isspace(uint8_t(s[i]))) ++i;
      if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
        while (i < n && s[i] != '\n') ++i;
      } else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
        size_t end = s.find("*/", i + 2);
        i = end == std::string::npos ? n : end + 2;
      } else {
        return;
      }
    }
  };
  for (;;) {
    skip_space_and_comments();
    if (i >= n || s[i] == '\0') break;
    size_t start = i;
    auto starts_with = [&](const char* word) {
      size_t len = std::strlen(word);
      return s.compare(i, len, word) == 0 && (i + len >= n || !ident_char(s[i + len]));
    };
    Statement st;
    if (starts_with(".version") || starts_with(".target") || starts_with(".address_size") ||
        starts_with(".file")) {
      st.kind = starts_with(".version")        ? Kind::Version
                : starts_with(".target")       ? Kind::Target
                : starts_with(".address_size") ? Kind::AddressSize
                                               : Kind::File;
      while (i < n && s[i] != '\n') ++i;
      st.text = s.substr(start, i - start);
      out.push_back(std::move(st));
      continue;
    }
    int depth = 0;
    bool done = false, initializer = false;  // braces after '=' hold values, not a body
    while (i < n && !done) {
      char c = s[i];
      if (c == '/' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*')) {
        if (s[i + 1] == '/') {
          while (i < n && s[i] != '\n') ++i;
        } else {
          size_t end = s.find("*/", i + 2);
          i = end == std::string::npos ? n : end + 2;
        }
        continue;
      }
      if (c == '"') {
        for (++i; i < n && s[i] != '"'; ++i)
          if (s[i] == '\\') ++i;
        ++i;
        continue;
      }
      if (c == '=' && depth == 0) {
        initializer = true;  // `.global .u8 x[2] = {1, 2};` ends at its ';'
      } else if (c == '{') {
        ++depth;
        st.has_body |= !initializer;
      } else if (c == '}') {
        if (--depth == 0 && !initializer) done = true;
      } else if (c == ';' && depth == 0) {
        done = true;
      }
      ++i;
    }
    st.text = s.substr(start, i - start);
    out.push_back(std::move(st));
  }
  return out;
}

// A function or variable statement's linkage, kind and name, from the words of its head.
void classify(Statement& st) {
  if (st.kind != Kind::Other) return;
  std::vector<std::string> words;
  int parens = 0;
  bool stop = false;
  size_t i = 0;
  for (; i < st.text.size() && !stop; ++i) {
    char c = st.text[i];
    if (c == '(') ++parens;
    if (c == ')') --parens;
    if (c == '{' || c == '[' || c == '=' || c == ';' ||
        (c == '(' && !words.empty() && words.back()[0] != '.'))
      stop = true;
    if (stop || parens > 0 || c == ')') continue;
    if (ident_start(c) || c == '.') {
      size_t start = i;
      while (i + 1 < st.text.size() && (ident_char(st.text[i + 1]) || st.text[i + 1] == '.')) ++i;
      words.push_back(st.text.substr(start, i + 1 - start));
    }
  }
  if (words.empty()) return;
  if (words[0] == ".section") {
    st.kind = Kind::Section;
    return;
  }
  for (const auto& w : words) {
    if (w == ".extern") st.is_extern = true;
    if (w == ".visible") st.is_visible = true;
    if (w == ".weak" || w == ".common") st.is_weak = true;
    if (w == ".func" || w == ".entry") st.kind = Kind::Function;
    if (w == ".shared") st.is_shared = true;
    if (w == ".global" || w == ".const" || w == ".shared") {
      if (st.kind == Kind::Other) st.kind = Kind::Variable;
    }
  }
  if (st.kind == Kind::Other) return;
  for (auto it = words.rbegin(); it != words.rend(); ++it)
    if ((*it)[0] != '.') {
      st.name = *it;
      return;
    }
  st.kind = Kind::Other;
}

bool defines(const Statement& st) {
  if (st.kind == Kind::Function) return st.has_body;
  return st.kind == Kind::Variable && !st.is_extern;
}

// Functions the driver provides to every module: printf, malloc, assertions, and the device
// runtime's calls into the driver that libcudadevrt.a makes (cnp*, __cuda_syscall_*: grid
// synchronisation, launches from the device). Which of them the simulated GPU executes is
// its loader's and executor's matter (a call of one it lacks is a fault naming it).
bool provided_by_driver(const std::string& name) {
  static const std::set<std::string> names = {"vprintf", "malloc", "free", "__assertfail"};
  return names.count(name) > 0 || name.rfind("cnp", 0) == 0 ||
         name.rfind("__cuda_syscall_", 0) == 0;
}

// Every identifier `from` outside comments and strings becomes `to`; `.file`, `.loc` and
// `inlined_at` numbers are shifted by `file_offset`.
std::string rewrite(const std::string& s, const std::map<std::string, std::string>& renames,
                    int file_offset) {
  std::string out;
  size_t copied = 0;
  bool number_is_file = false;
  scan_words(s, [&](size_t b, size_t e) {
    std::string word = s.substr(b, e - b);
    std::string replacement;
    bool replace = false;
    if (number_is_file && std::isdigit(uint8_t(word[0]))) {
      replacement = std::to_string(std::stol(word) + file_offset);
      replace = file_offset != 0;
    } else if (auto it = renames.find(word); it != renames.end()) {
      replacement = it->second;
      replace = true;
    }
    number_is_file = word == ".loc" || word == ".file" || word == "inlined_at";
    if (!replace) return;
    out.append(s, copied, b - copied);
    out += replacement;
    copied = e;
  });
  out.append(s, copied, std::string::npos);
  return out;
}

std::string header_value(const std::string& text) {
  size_t space = text.find_first_of(" \t");
  if (space == std::string::npos) return {};
  size_t start = text.find_first_not_of(" \t", space);
  size_t end = text.find_first_of(" \t,/", start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

int sm_of(const std::string& target) {
  if (target.rfind("sm_", 0) != 0) return -1;
  return std::atoi(target.c_str() + 3);
}

}  // namespace

ImageKind image_kind(const void* data, size_t size) {
  const auto* b = static_cast<const uint8_t*>(data);
  if (size >= 4 && std::memcmp(b,
                               "\x7f"
                               "ELF",
                               4) == 0)
    return ImageKind::Elf;
  if (size >= 4 && b[0] == 0x50 && b[1] == 0xed && b[2] == 0x55 && b[3] == 0xba)
    return ImageKind::Fatbin;
  for (size_t i = 0; i < size && i < 4096; ++i)
    if (b[i] == '.' && std::strncmp(reinterpret_cast<const char*>(b + i), ".version", 8) == 0)
      return ImageKind::Ptx;
  return ImageKind::Unknown;
}

void PtxLinker::add_ptx(std::string text, std::string name) {
  if (size_t nul = text.find('\0'); nul != std::string::npos) text.resize(nul);
  inputs_.push_back({std::move(name), std::move(text)});
}

void PtxLinker::add_image(const void* data, size_t size, std::string name) {
  switch (image_kind(data, size)) {
    case ImageKind::Ptx:
      return add_ptx(std::string(static_cast<const char*>(data), size), std::move(name));
    case ImageKind::Fatbin:
      return add_ptx(fatbin_ptx(data, size, name, arch_.empty() ? -1 : sm_of(arch_)), name);
    case ImageKind::Elf:
      throw LinkError("'" + name +
                      "' is a cubin (ELF): the simulated GPU runs PTX, and a cubin holds "
                      "machine code only; link the PTX it was built from instead");
    case ImageKind::Unknown:
      break;
  }
  throw LinkError("'" + name + "' is neither PTX nor a fatbin");
}

std::string PtxLinker::link() const {
  if (inputs_.empty()) throw LinkError("nothing to link: no input was added");
  std::vector<std::vector<Statement>> modules;
  for (const auto& in : inputs_) {
    modules.push_back(split(in.text));
    for (auto& st : modules.back()) classify(st);
  }
  // The header: the newest .version, the link's target, 64-bit addresses.
  int version_major = 0, version_minor = 0, newest_sm = -1;
  std::string newest_target;
  for (size_t m = 0; m < modules.size(); ++m) {
    bool has_version = false;
    for (const auto& st : modules[m]) {
      if (st.kind == Kind::Version) {
        has_version = true;
        std::string v = header_value(st.text);
        int major = std::atoi(v.c_str()), minor = 0;
        if (size_t dot = v.find('.'); dot != std::string::npos)
          minor = std::atoi(v.c_str() + dot + 1);
        if (std::make_pair(major, minor) > std::make_pair(version_major, version_minor))
          version_major = major, version_minor = minor;
      } else if (st.kind == Kind::Target) {
        std::string target = header_value(st.text);
        if (sm_of(target) > newest_sm) newest_sm = sm_of(target), newest_target = target;
      } else if (st.kind == Kind::AddressSize && header_value(st.text) != "64") {
        throw LinkError("'" + inputs_[m].name + "' uses 32-bit addresses; only 64 is supported");
      }
    }
    if (!has_version) throw LinkError("'" + inputs_[m].name + "' is not PTX: no .version");
  }
  std::string target = arch_.empty() ? newest_target : arch_;
  int target_sm = sm_of(target);
  if (target_sm < 0) throw LinkError("unknown target '" + target + "'");
  for (size_t m = 0; m < modules.size(); ++m)
    for (const auto& st : modules[m])
      if (st.kind == Kind::Target && sm_of(header_value(st.text)) > target_sm)
        throw LinkError("'" + inputs_[m].name + "' targets " + header_value(st.text) +
                        ", newer than the link's " + target);

  // Who defines each symbol with external linkage, and which internal names are taken.
  std::map<std::string, size_t> external;     // name -> the module whose definition is kept
  std::map<std::string, int> internal_count;  // name -> modules defining it internally
  std::set<std::pair<size_t, std::string>> dropped_weak;
  for (size_t m = 0; m < modules.size(); ++m) {
    for (const auto& st : modules[m]) {
      if (!defines(st)) continue;
      if (!st.is_visible && !st.is_weak) {
        ++internal_count[st.name];
        continue;
      }
      auto [it, fresh] = external.emplace(st.name, m);
      if (fresh) continue;
      const Statement* first = nullptr;
      for (const auto& other : modules[it->second])
        if (defines(other) && other.name == st.name) first = &other;
      if (st.is_weak) {
        dropped_weak.insert({m, st.name});
      } else if (first && first->is_weak) {
        dropped_weak.insert({it->second, st.name});
        it->second = m;
      } else {
        throw LinkError("multiple definition of '" + st.name + "' in '" + inputs_[m].name +
                        "', first defined in '" + inputs_[it->second].name + "'");
      }
    }
  }

  std::string out = "//\n// Linked by cudajit's simulated GPU from " +
                    std::to_string(inputs_.size()) + " PTX module(s)\n//\n\n.version " +
                    std::to_string(version_major) + "." + std::to_string(version_minor) +
                    "\n.target " + target + "\n.address_size 64\n\n";
  int file_offset = 0;
  for (size_t m = 0; m < modules.size(); ++m) {
    // Internal names that another module also uses are made unique to this one.
    std::map<std::string, std::string> renames;
    for (const auto& st : modules[m]) {
      if (!defines(st) || st.is_visible || st.is_weak) continue;
      if (internal_count[st.name] > 1 || external.count(st.name))
        renames[st.name] = st.name + "$" + std::to_string(m);
    }
    int highest_file = 0;
    for (const auto& st : modules[m]) {
      switch (st.kind) {
        case Kind::Version:
        case Kind::Target:
        case Kind::AddressSize:
        case Kind::Section:  // DWARF of the input: not executed, and per module
          continue;
        case Kind::File:
          highest_file = std::max(highest_file, std::atoi(header_value(st.text).c_str()));
          break;
        case Kind::Function:
        case Kind::Variable:
          if (dropped_weak.count({m, st.name}) && defines(st)) continue;
          if (!defines(st) && st.is_extern && !(st.kind == Kind::Variable && st.is_shared)) {
            bool resolved = external.count(st.name) > 0;
            if (!resolved && !(st.kind == Kind::Function && provided_by_driver(st.name)))
              throw LinkError(std::string("unresolved extern ") +
                              (st.kind == Kind::Function ? "function" : "variable") + " '" +
                              st.name + "' in '" + inputs_[m].name + "'");
            if (resolved && st.kind == Kind::Variable) continue;  // the definition stands
          }
          break;
        case Kind::Other:
          break;
      }
      std::string text = rewrite(st.text, renames, file_offset);
      if (max_registers_ > 0 && st.kind == Kind::Function && st.has_body &&
          text.find(".entry") != std::string::npos && text.find(".maxnreg") == std::string::npos)
        text.insert(text.find('{'), ".maxnreg " + std::to_string(max_registers_) + "\n");
      out += text;
      out += "\n";
    }
    out += "\n";
    file_offset += highest_file;
  }
  return out;
}

namespace {

// A fatbin entry's payload as text: as stored, or decompressed (flag 0x8000: zstd, CUDA
// 12.8's default; 0x2000: the LZ4-style format of earlier toolkits, which is not read here).
std::string entry_text(const uint8_t* entry, uint64_t header, uint64_t payload,
                       const std::string& name) {
  uint64_t flags = 0, stored = 0, expanded = 0;
  if (header >= 0x40) {
    std::memcpy(&flags, entry + 0x28, 8);
    std::memcpy(&stored, entry + 0x10, 4);
    std::memcpy(&expanded, entry + 0x38, 8);
  }
  const char* text = reinterpret_cast<const char*>(entry + header);
  if (flags & 0x8000) {
#if CUDAJIT_SIM_HAVE_ZSTD
    if (stored == 0 || stored > payload || expanded == 0 || expanded > (1ull << 32))
      throw LinkError("'" + name + "' is a corrupt fatbin (compressed entry sizes)");
    std::string out(expanded, '\0');
    size_t n = ZSTD_decompress(out.data(), out.size(), text, stored);
    if (ZSTD_isError(n))
      throw LinkError("'" + name + "': its compressed PTX cannot be read (" + ZSTD_getErrorName(n) +
                      ")");
    out.resize(strnlen(out.data(), n));
    return out;
#else
    throw LinkError("'" + name + "' holds zstd-compressed PTX, and this build has no zstd");
#endif
  }
  if (flags & 0x2000)
    throw LinkError("'" + name +
                    "' holds PTX compressed in the format of toolkits before 12.8, which the "
                    "simulated GPU cannot read; rebuild it with nvcc -Xfatbin=-compress=false, "
                    "or link its PTX");
  return std::string(text, strnlen(text, payload));
}

}  // namespace

std::string fatbin_ptx(const void* data, size_t size, const std::string& name, int target_sm) {
  // The container: a 16-byte header (magic, version, header size, size of what follows),
  // then entries, each a header (kind 1 = PTX, 2 = ELF; its size; the payload's size; the
  // virtual architecture; flags) and its payload. As the driver does, the PTX of the newest
  // architecture the target runs is taken (libcudadevrt.a carries PTX for several).
  const auto* b = static_cast<const uint8_t*>(data);
  auto read = [&](size_t at, size_t bytes) {
    uint64_t v = 0;
    if (at + bytes > size) throw LinkError("'" + name + "' is a truncated fatbin");
    std::memcpy(&v, b + at, bytes);
    return v;
  };
  std::string ptx, newest_ptx;
  int best_arch = -1, oldest_arch = -1, newest_arch = -1;
  bool has_elf = false, has_elf_for_target = false;
  size_t at = 0;
  while (at + 16 <= size && read(at, 4) == 0xBA55ED50u) {
    uint64_t header_size = read(at + 6, 2), body = read(at + 8, 8);
    size_t entry = at + header_size, end = at + header_size + body;
    if (end > size) throw LinkError("'" + name + "' is a truncated fatbin");
    while (entry + 16 <= end) {
      uint64_t kind = read(entry, 2), entry_header = read(entry + 4, 4),
               payload = read(entry + 8, 8);
      if (entry + entry_header + payload > end)
        throw LinkError("'" + name + "' is a corrupt fatbin");
      if (kind == 1) {
        int arch = entry_header >= 0x20 ? int(read(entry + 0x1c, 4)) : 0;
        if (oldest_arch < 0 || arch < oldest_arch) oldest_arch = arch;
        if ((target_sm < 0 || arch <= target_sm) && arch > best_arch) {
          best_arch = arch;
          ptx = entry_text(b + entry, entry_header, payload, name);
        }
        if (arch > newest_arch) {
          newest_arch = arch;
          newest_ptx = entry_text(b + entry, entry_header, payload, name);
        }
      } else if (kind == 2) {
        has_elf = true;
        int arch = entry_header >= 0x20 ? int(read(entry + 0x1c, 4)) : 0;
        if (target_sm >= 0 && arch <= target_sm) has_elf_for_target = true;
      }
      entry += entry_header + payload;
    }
    at = end;
  }
  if (best_arch < 0 && oldest_arch >= 0 && has_elf_for_target) {
    // Only newer PTX, and machine code for the target (the toolkit's libcudadevrt.a: PTX for
    // the newest architecture alone). The driver would load that machine code; the simulated
    // GPU runs the PTX it was built from instead, as for the target: every instruction is
    // still checked against the device at load (docs/dev/simulator.md).
    ptx = newest_ptx;
    size_t at_target = ptx.find(".target");
    size_t line_end = ptx.find('\n', at_target);
    if (at_target != std::string::npos)
      ptx.replace(at_target, line_end - at_target, ".target sm_" + std::to_string(target_sm));
    return ptx;
  }
  if (best_arch < 0 && oldest_arch >= 0)
    throw LinkError("'" + name + "' holds PTX for compute_" + std::to_string(oldest_arch) +
                    " and newer only, newer than the link's sm_" + std::to_string(target_sm));
  if (best_arch < 0)
    throw LinkError("'" + name + "' is a fatbin without PTX" +
                    (has_elf ? " (only cubins: machine code)" : "") +
                    ": the simulated GPU runs PTX; rebuild it with PTX included "
                    "(nvcc -gencode arch=compute_XX,code=compute_XX)");
  return ptx;
}

}  // namespace cudajit::sim::link
