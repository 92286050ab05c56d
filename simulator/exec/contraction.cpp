#include "contraction.hpp"

#include <unordered_map>

namespace cudajit::sim {

namespace {

using ptx::Instruction;
using ptx::Operand;

// mul/add/sub.f32 or .f64 with no other modifier (no rounding, .ftz or .sat), unguarded.
bool plain_float(const Instruction& ins, const char* opcode) {
  return ins.opcode == opcode && ins.guard.empty() && ins.modifiers.size() == 1 &&
         (ins.modifiers[0] == "f32" || ins.modifiers[0] == "f64") && ins.operands.size() == 3 &&
         ins.operands[0].kind == Operand::Kind::Register;
}

void count_reads(const Operand& o, std::unordered_map<std::string, int>& reads) {
  if ((o.kind == Operand::Kind::Register) ||
      (o.kind == Operand::Kind::Address && o.base_is_register))
    ++reads[o.name];
  for (const auto& e : o.elements) count_reads(e, reads);
}

bool writes(const Instruction& ins, const std::string& name) {
  if (ins.operands.empty()) return false;
  const Operand& d = ins.operands[0];
  if (d.kind == Operand::Kind::Register) return d.name == name;
  for (const auto& e : d.elements)
    if (e.kind == Operand::Kind::Register && e.name == name) return true;
  return false;
}

bool is_register(const Operand& o, const std::string& name) {
  return o.kind == Operand::Kind::Register && !o.negated && o.name == name;
}

}  // namespace

std::vector<Instruction> contract_multiply_adds(const ptx::Function& function) {
  std::vector<Instruction> body = function.body;
  // Reads of each register over the whole function (a destination is not a read, except
  // for instructions that read their first operand: st, and branches' targets are symbols).
  std::unordered_map<std::string, int> reads;
  for (const auto& ins : body) {
    if (!ins.guard.empty()) ++reads[ins.guard];
    bool first_is_read = ins.opcode == "st" || ins.opcode == "red" || ins.opcode == "call";
    for (size_t i = first_is_read ? 0 : 1; i < ins.operands.size(); ++i)
      count_reads(ins.operands[i], reads);
    if (!first_is_read && !ins.operands.empty() && ins.operands[0].kind == Operand::Kind::Address)
      count_reads(ins.operands[0], reads);
  }
  std::vector<char> label_at(body.size() + 1, 0);
  for (const auto& [name, index] : function.labels) label_at[index] = 1;

  for (size_t i = 0; i < body.size(); ++i) {
    const Instruction& mul = body[i];
    if (!plain_float(mul, "mul")) continue;
    const std::string& product = mul.operands[0].name;
    if (reads[product] != 1) continue;
    for (size_t j = i + 1; j < body.size() && !label_at[j]; ++j) {
      Instruction& use = body[j];
      bool is_add = plain_float(use, "add"), is_sub = plain_float(use, "sub");
      bool reads_product = false;
      for (size_t k = 1; k < use.operands.size(); ++k)
        reads_product = reads_product || is_register(use.operands[k], product);
      if (reads_product) {
        if ((is_add || is_sub) && use.modifiers == mul.modifiers) {
          bool product_first = is_register(use.operands[1], product);
          Instruction fma = use;
          fma.opcode = "fma";
          fma.modifiers = {"rn", mul.modifiers[0]};
          if (is_sub && !product_first) fma.modifiers.push_back("negproduct");  // c - a*b
          if (is_sub && product_first) fma.modifiers.push_back("negaddend");    // a*b - c
          fma.operands = {use.operands[0], mul.operands[1], mul.operands[2],
                          product_first ? use.operands[2] : use.operands[1]};
          use = fma;
        }
        break;
      }
      // Stop where the multiply's operands or result change, or control leaves the block.
      if (writes(use, product) || writes(use, mul.operands[1].name) ||
          writes(use, mul.operands[2].name) || use.opcode == "bra" || use.opcode == "ret" ||
          use.opcode == "exit" || use.opcode == "call" || !use.guard.empty())
        break;
    }
  }
  return body;
}

}  // namespace cudajit::sim
