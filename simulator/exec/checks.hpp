// Checks beyond what hardware faults on, in the spirit of compute-sanitizer: racecheck (hazards
// between threads of a block on shared memory with no barrier between them) and initcheck
// (kernel reads of device memory that nothing wrote since its allocation). They report and let
// the kernel run on.
//
// Off, they cost nothing: instrument() replaces the handlers of a program's memory instructions
// by a checking one only when checks are asked for (CUDAJIT_SIM_CHECK, read once), so the
// unchecked program runs exactly the code it would without them.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "program.hpp"

namespace cudajit::sim {

enum CheckSet : uint8_t { kNoChecks = 0, kRaceCheck = 1, kInitCheck = 2 };

// "race,init" (also "racecheck", "initcheck", "all"; "" and "none" for none). Names it does not
// know are appended to `unknown`, comma-separated.
uint8_t parse_checks(const std::string& text, std::string* unknown = nullptr);
// CUDAJIT_SIM_CHECK, parsed once (an unknown name warns once on stderr).
uint8_t checks_from_environment();

// What a memory instruction touches (Inst::access), set by the ld/st/atom/red decoders: the
// space its address operand names (bits 0-1) and how it accesses it (bits 2-3). Local and
// .param accesses are 0: no check looks at them.
enum AccessBits : uint8_t {
  kAccessGeneric = 1,
  kAccessGlobal = 2,
  kAccessShared = 3,
  kAccessSpaceMask = 3,
  kAccessRead = 0 << 2,
  kAccessWrite = 1 << 2,
  kAccessAtomic = 2 << 2,
  kAccessModeMask = 3 << 2,
};

// Gives the memory instructions of `program` the checking handler (the decoded one is kept in
// Function::unchecked). Call once, before the program runs.
void instrument(Program& program, uint8_t checks);

// What one launch's checks found, each distinct finding once, written to stderr when the
// launch ends (execute()). Thread-safe: blocks run on several host threads.
class CheckReports {
 public:
  // Adds `text` unless a finding with the same key was added before; returns whether it was.
  bool add(std::tuple<uint32_t, uint32_t, uint32_t> key, const std::string& text);
  bool seen(std::tuple<uint32_t, uint32_t, uint32_t> key);
  std::vector<std::string> lines() const;

 private:
  mutable std::mutex mutex_;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> keys_;
  std::vector<std::string> lines_;
};

// The instruction a race shadow's site number names (Function::site_base + pc + 1).
struct CheckSite {
  const Function* function = nullptr;
  const Inst* inst = nullptr;
};
CheckSite find_site(const Program& program, uint32_t site);

}  // namespace cudajit::sim
