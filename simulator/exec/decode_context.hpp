// What an opcode's decoder sees: the parsed instruction, and the means to turn
// its operands into slots. Each instruction family (exec/ops/*.cpp) registers
// one decoder per opcode in the OpcodeTable; the decoder picks the handler for
// the instruction's types and modifiers, or refuses it naming the line.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "program.hpp"

namespace cudajit::sim {

class DecodeContext;
using OpDecoder = void (*)(DecodeContext& context, Inst& inst);
using OpcodeTable = std::unordered_map<std::string, OpDecoder>;

class DecodeContext {
 public:
  virtual ~DecodeContext() = default;
  const ptx::Instruction& instruction() const { return *instruction_; }
  const ptx::Operand& operand(size_t i) const;
  size_t operand_count() const { return instruction_->operands.size(); }
  bool has(const char* modifier) const { return instruction_->has(modifier); }
  // The modifiers that name fundamental types, in order (cvt.rn.f32.s32 -> {f32, s32}).
  std::vector<std::string> types() const;
  // The one type of an instruction that has exactly one (else an error).
  std::string type() const;

  // A register operand (a destination): its slot.
  virtual uint32_t reg(const ptx::Operand& operand) = 0;
  // A source: a register, an immediate (as `type`'s bits) or a symbol's address.
  virtual uint32_t value(const ptx::Operand& operand, const std::string& type) = 0;
  // An [address] in `space`: sets inst.op[base_index] (the base slot) and inst.offset.
  // Returns the space a symbol base lives in (Generic for a register base).
  virtual ptx::Space address(const ptx::Operand& operand, ptx::Space space, Inst& inst,
                             int base_index) = 0;
  virtual uint32_t label(const ptx::Operand& operand) = 0;
  // The slot of a special register (exec/special_registers.hpp), e.g. kCarryFlag.
  virtual uint32_t special(uint32_t which) const = 0;
  // Registers a call site (callee, parameter copies) and returns its index. An indirect call's
  // callee is a register, and `targets` its .callprototype, .calltargets or call table.
  virtual uint32_t call_site(const ptx::Operand& callee, const ptx::Operand* results,
                             const ptx::Operand* arguments, const ptx::Operand* targets) = 0;

  // Refuses the instruction unless the module's .target is at least sm_`sm` and its .version
  // at least major.minor (an instruction's "PTX ISA Notes" and "Target ISA Notes").
  void require(int sm, int major, int minor) const;

  [[noreturn]] void error(const std::string& message) const;
  [[noreturn]] void unsupported() const;  // "unsupported instruction 'add.sat.u32'"

 protected:
  const ptx::Instruction* instruction_ = nullptr;
  int sm_ = 0, version_major_ = 0, version_minor_ = 0;  // the module's .target and .version
};

// Every family's decoders, keyed by opcode.
const OpcodeTable& opcode_table();

void register_integer_ops(OpcodeTable& table);
void register_move_ops(OpcodeTable& table);
void register_float_ops(OpcodeTable& table);
void register_conversion_ops(OpcodeTable& table);
void register_compare_ops(OpcodeTable& table);
void register_memory_ops(OpcodeTable& table);
void register_control_ops(OpcodeTable& table);
void register_warp_ops(OpcodeTable& table);
void register_atomic_ops(OpcodeTable& table);
void register_mbarrier_ops(OpcodeTable& table);

}  // namespace cudajit::sim
