// The checking handler of memory instructions (racecheck and initcheck), the instrumentation
// that installs it, and the per-launch report.
#include "checks.hpp"

#include <cstdio>
#include <cstdlib>

#include "racecheck.hpp"
#include "warp.hpp"

namespace cudajit::sim {

uint8_t parse_checks(const std::string& text, std::string* unknown) {
  uint8_t checks = kNoChecks;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string name = text.substr(start, end - start);
    start = end + 1;
    if (name.empty() || name == "none") continue;
    if (name == "race" || name == "racecheck")
      checks |= kRaceCheck;
    else if (name == "init" || name == "initcheck")
      checks |= kInitCheck;
    else if (name == "all")
      checks |= kRaceCheck | kInitCheck;
    else if (unknown)
      *unknown += (unknown->empty() ? "" : ",") + name;
  }
  return checks;
}

uint8_t checks_from_environment() {
  static const uint8_t checks = [] {
    const char* text = std::getenv("CUDAJIT_SIM_CHECK");
    if (!text) return uint8_t(kNoChecks);
    std::string unknown;
    uint8_t parsed = parse_checks(text, &unknown);
    if (!unknown.empty())
      std::fprintf(stderr,
                   "cudajit simulated GPU: CUDAJIT_SIM_CHECK: unknown check '%s' ignored (known: "
                   "race, init, all)\n",
                   unknown.c_str());
    return parsed;
  }();
  return checks;
}

bool CheckReports::seen(std::tuple<uint32_t, uint32_t, uint32_t> key) {
  std::lock_guard lock(mutex_);
  return keys_.count(key) != 0;
}

bool CheckReports::add(std::tuple<uint32_t, uint32_t, uint32_t> key, const std::string& text) {
  std::lock_guard lock(mutex_);
  if (!keys_.insert(key).second) return false;
  lines_.push_back(text);
  return true;
}

std::vector<std::string> CheckReports::lines() const {
  std::lock_guard lock(mutex_);
  return lines_;
}

CheckSite find_site(const Program& program, uint32_t site) {
  for (const auto& f : program.functions)
    if (site > f->site_base && site <= f->site_base + f->code.size())
      return {f.get(), &f->code[site - f->site_base - 1]};
  return {};
}

namespace {

constexpr int kAddressBase = 5;  // ld, st, atom, red: op[5] is the address's base register

// initcheck: a global read of bytes nothing wrote since their allocation, once per allocation.
void check_initialised(const Warp& warp, const Inst& inst, int lane, uint64_t address,
                       uint32_t size) {
  auto unwritten = warp.launch->memory->unwritten_read(address, size);
  if (!unwritten || !warp.launch->reports) return;
  char text[256];
  std::snprintf(text, sizeof text,
                "initcheck: %u-byte read at 0x%llx (offset %llu of %s of %llu bytes at 0x%llx) "
                "of memory nothing wrote since its allocation (in ",
                size, (unsigned long long)address, (unsigned long long)(address - unwritten->begin),
                unwritten->what.c_str(), (unsigned long long)unwritten->size,
                (unsigned long long)unwritten->begin);
  warp.launch->reports->add(
      {0xFFFFFFFFu, uint32_t(unwritten->begin), uint32_t(unwritten->begin >> 32)},
      text + warp.where(inst, lane) + ")");
}

// Records the access for the checks that are on, then runs the decoded handler.
void run_checked(Warp& warp, const Inst& inst, uint32_t mask) {
  const Function& function = warp.function();
  const uint32_t pc = uint32_t(&inst - function.code.data());
  const uint8_t space = inst.access & kAccessSpaceMask, mode = inst.access & kAccessModeMask;
  const uint64_t* base = warp.reg(inst.op[kAddressBase]);
  const uint64_t shared_bytes = warp.block->shared.size();
  uint64_t offsets[kWarpSize];
  uint32_t shared_lanes = 0;
  const bool init = (warp.launch->program->checks & kInitCheck) != 0;
  for_lanes(mask, [&](int lane) {
    uint64_t address = base[lane] + uint64_t(inst.offset);
    uint64_t window = space == kAccessShared   ? kSharedWindow
                      : space == kAccessGlobal ? 0
                                               : address & kWindowMask;
    if (space == kAccessShared) address += kSharedWindow;
    if (window == kSharedWindow) {
      uint64_t offset = address - kSharedWindow;
      // Out of bounds: the handler faults; nothing to record.
      if (offset <= shared_bytes && inst.size <= shared_bytes - offset) {
        offsets[lane] = offset;
        shared_lanes |= 1u << lane;
      }
    } else if (window == 0 && init) {
      if (mode != kAccessWrite) check_initialised(warp, inst, lane, address, inst.size);
      if (mode != kAccessRead) warp.launch->memory->mark_written(address, inst.size);
    }
  });
  if (shared_lanes && mode != kAccessAtomic && warp.block->race)
    warp.block->race->access(warp, function.site_base + pc + 1, shared_lanes, offsets, inst.size,
                             mode == kAccessWrite);
  function.unchecked[pc](warp, inst, mask);
}

}  // namespace

void instrument(Program& program, uint8_t checks) {
  program.checks = checks;
  if (checks == kNoChecks) return;
  uint32_t site_base = 0;
  for (auto& f : program.functions) {
    f->site_base = site_base;
    site_base += uint32_t(f->code.size());
    f->unchecked.assign(f->code.size(), nullptr);
    for (size_t pc = 0; pc < f->code.size(); ++pc) {
      Inst& inst = f->code[pc];
      if (inst.access == 0) continue;
      f->unchecked[pc] = inst.run;
      inst.run = run_checked;
    }
  }
}

}  // namespace cudajit::sim
