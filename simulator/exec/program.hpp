// A PTX module decoded once into what the executor runs: per function, an array
// of instructions whose operands are register slots (immediates and symbol
// addresses become constant slots), each with the handler chosen for its
// opcode, types and modifiers, branch targets and reconvergence points resolved.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "../ptx/module.hpp"
#include "memory.hpp"

namespace cudajit::sim {

// Local memory per thread for the frames of recursive calls, beyond the deepest chain of the
// rest: CUDA's default stack size (cuCtxSetLimit, CU_LIMIT_STACK_SIZE).
inline constexpr uint64_t kRecursionStackBytes = 1024;

struct Warp;
struct Inst;

// Runs one instruction for the lanes in `mask` (active lanes whose guard holds).
using Handler = void (*)(Warp& warp, const Inst& inst, uint32_t mask);

constexpr uint32_t kNoSlot = 0xFFFFFFFFu;

struct Inst {
  Handler run = nullptr;
  uint32_t op[6] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  int64_t offset = 0;        // address offset, or a handler's immediate
  uint32_t target = 0;       // branch target, callee index
  uint32_t reconverge = 0;   // a branch's immediate post-dominator (a pc)
  uint32_t guard = kNoSlot;  // predicate slot, or kNoSlot
  bool guard_negated = false;
  uint8_t count = 0;        // vector width, operand count
  uint8_t size = 0;         // access size in bytes
  uint8_t aux = 0;          // handler-specific (comparison, space, rounding)
  uint32_t source = 0;      // index into Function::sources
  bool is_control = false;  // may change the pc or stop the warp: never skipped
  uint8_t access = 0;       // ld/st/atom/red: the space and kind of access (exec/checks.hpp)
};

// Where an instruction came from, for diagnostics.
struct SourcePoint {
  int ptx_line = 0;
  int file = 0, line = 0, column = 0;  // .loc (file 0: none)
};

// Per-thread values a frame's constant slots take from where the frame lives.
struct LocalSymbolSlot {
  uint32_t slot;
  uint64_t offset;  // within the function's locals
};

// One argument or result of a call (Inst::target indexes Function::calls): `size` bytes from
// a .param area offset, a register slot or a constant's bits, to an offset or a register slot.
// Formal parameters may be .param or .reg, actual ones .param, .reg or constants (PTX ISA 7.1).
struct ParamCopy {
  enum Place : uint8_t { kParamArea, kRegister, kConstant };
  uint64_t from = 0, to = 0, size = 0;
  Place from_place = kParamArea, to_place = kParamArea;
};
// A direct call names its callee; an indirect one (call ..., %fptr, (...), proto) takes it from
// a register at run time, and its copies' callee sides are the target's Formals.
struct CallSite {
  uint32_t callee = 0;
  std::vector<ParamCopy> arguments;  // caller's area -> callee's area
  std::vector<ParamCopy> results;    // callee's area -> caller's area
  bool indirect = false;
  uint32_t pointer = kNoSlot;     // indirect: the register holding the function's address
  std::string signature;          // indirect: the .callprototype, .calltargets or call table
  std::vector<uint32_t> allowed;  // indirect: .calltargets' or the table's functions (empty: any)
};

// Where a function's formal parameter or return lives in its frame (a .param offset or a .reg
// slot) and its size: an indirect call copies its arguments and results to and from these.
struct Formal {
  ParamCopy::Place place = ParamCopy::kParamArea;
  uint64_t at = 0, size = 0;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool is_declaration = false;
  std::vector<Inst> code;
  std::vector<SourcePoint> sources;
  uint32_t register_count = 0;  // declared registers: slots [0, register_count)
  uint32_t slot_count = 0;      // all slots: registers, constants, special registers
  std::vector<std::pair<uint32_t, uint64_t>> constants;  // slot -> value (every lane)
  std::vector<LocalSymbolSlot> local_symbols;            // slot -> local window address
  uint32_t special_base = 0;            // first special-register slot (see exec/special_registers)
  uint64_t local_bytes = 0;             // this function's .local variables, per thread
  uint64_t param_bytes = 0;             // per-thread .param area: params, returns, call blocks
  std::vector<uint64_t> param_offsets;  // offset of each .param argument
  std::vector<uint64_t> param_sizes;
  std::vector<uint64_t> return_offsets;  // offset of each return value
  std::vector<uint64_t> return_sizes;
  std::vector<CallSite> calls;
  std::vector<Formal> formal_params, formal_returns;
  // Kernels: the .param list as the launch must provide it.
  uint64_t kernel_param_bytes = 0;
  uint32_t reqntid[3] = {0, 0, 0}, maxntid[3] = {0, 0, 0};
  int maxnreg = 0;
  uint64_t static_shared_bytes = 0;    // kernels: static .shared reachable from them
  uint64_t max_local_bytes = 0;        // kernels: deepest chain of locals over calls
  uint64_t dynamic_shared_offset = 0;  // kernels: where extern .shared arrays start
  int ptx_line = 0;
  // Checks (exec/checks.hpp): the decoded handlers of instrumented instructions, by pc, and the
  // number of this function's first instruction among the program's.
  std::vector<Handler> unchecked;
  uint32_t site_base = 0;
};

// A function's address (kFunctionWindow, exec/memory.hpp): the program's serial and the
// function's index, 16-byte aligned. An indirect call looks the function up in whichever
// loaded module it is (exec/functions.cpp), as code addresses are the context's on hardware.
constexpr uint32_t kMaxFunctions = 1u << 20;
uint64_t function_address(uint32_t program_serial, uint32_t index);

struct Program {
  Program();
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  uint32_t serial = 0;  // this program's functions' addresses name it (function_address)
  std::string target;   // "sm_90"
  int sm = 0;           // 90
  int version_major = 0, version_minor = 0;
  std::vector<std::unique_ptr<Function>> functions;
  std::unordered_map<std::string, uint32_t> by_name;
  std::map<int, std::string> files;
  // Module-scope .global/.const variables: storage owned by the loaded module.
  struct Global {
    std::string name;
    ptx::Space space;
    std::vector<uint8_t> storage;  // the variable's bytes (its address is storage.data())
    uint64_t align = 1;
  };
  std::vector<std::unique_ptr<Global>> globals;
  uint8_t checks = 0;  // the CheckSet it was instrumented for (exec/checks.hpp)

  const Function* find(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : functions[it->second].get();
  }
  // "file.py:12" for an instruction with a .loc, else "PTX line N".
  std::string where(const Function& f, const Inst& inst) const;
};

// The function at a function address: in `current` (the running launch's program) or another
// live program; null when no function of a live program has that address.
const Function* find_function_at(const Program& current, uint64_t address);

// Decodes a parsed module; throws ptx::PtxError naming the line of anything the
// simulator does not know (an opcode, a modifier, an operand form).
std::unique_ptr<Program> decode(const ptx::Module& module);

}  // namespace cudajit::sim
