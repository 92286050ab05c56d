// ptx::Module -> Program: slots for registers, constants and special registers;
// layouts of the .param, .local and .shared areas; each instruction through its
// family's decoder; branch reconvergence points from post-dominators.
#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include "contraction.hpp"
#include "decode_context.hpp"
#include "memory.hpp"
#include "special_registers.hpp"

namespace cudajit::sim {

using ptx::Operand;
using ptx::PtxError;
using ptx::Space;

uint32_t special_register(const std::string& name) {
  static const std::unordered_map<std::string, uint32_t> names = {
      {"%tid.x", kTidX},
      {"%tid.y", kTidY},
      {"%tid.z", kTidZ},
      {"%ntid.x", kNtidX},
      {"%ntid.y", kNtidY},
      {"%ntid.z", kNtidZ},
      {"%ctaid.x", kCtaidX},
      {"%ctaid.y", kCtaidY},
      {"%ctaid.z", kCtaidZ},
      {"%nctaid.x", kNctaidX},
      {"%nctaid.y", kNctaidY},
      {"%nctaid.z", kNctaidZ},
      {"%laneid", kLaneId},
      {"%warpid", kWarpId},
      {"%nwarpid", kNwarpId},
      {"%smid", kSmId},
      {"%nsmid", kNsmId},
      {"%gridid", kGridId},
      {"%lanemask_eq", kLanemaskEq},
      {"%lanemask_le", kLanemaskLe},
      {"%lanemask_lt", kLanemaskLt},
      {"%lanemask_ge", kLanemaskGe},
      {"%lanemask_gt", kLanemaskGt},
      {"%dynamic_smem_size", kDynamicSmemSize},
      {"%total_smem_size", kTotalSmemSize}};
  auto it = names.find(name);
  return it == names.end() ? kSpecialRegisterCount : it->second;
}

const ptx::Operand& DecodeContext::operand(size_t i) const {
  if (i >= instruction_->operands.size())
    error("expects at least " + std::to_string(i + 1) + " operands, has " +
          std::to_string(instruction_->operands.size()));
  return instruction_->operands[i];
}

std::vector<std::string> DecodeContext::types() const {
  std::vector<std::string> result;
  for (const auto& m : instruction_->modifiers)
    if (ptx::type_size(m) != 0) result.push_back(m);
  return result;
}

std::string DecodeContext::type() const {
  auto t = types();
  if (t.size() != 1) unsupported();
  return t[0];
}

void DecodeContext::error(const std::string& message) const {
  if (instruction_ == nullptr) throw PtxError(0, message);  // a declaration, not an instruction
  std::string text = instruction_->opcode;
  for (const auto& m : instruction_->modifiers) text += "." + m;
  throw PtxError(instruction_->line, "'" + text + "': " + message);
}

void DecodeContext::require(int sm, int major, int minor) const {
  if (sm_ < sm)
    error("requires sm_" + std::to_string(sm) + " or higher (the module's .target is sm_" +
          std::to_string(sm_) + ")");
  if (version_major_ < major || (version_major_ == major && version_minor_ < minor))
    error("requires PTX ISA " + std::to_string(major) + "." + std::to_string(minor) +
          " or later (the module's .version is " + std::to_string(version_major_) + "." +
          std::to_string(version_minor_) + ")");
}

void DecodeContext::unsupported() const {
  std::string text = instruction_->opcode;
  for (const auto& m : instruction_->modifiers) text += "." + m;
  throw PtxError(instruction_->line, "unsupported instruction '" + text + "'");
}

const OpcodeTable& opcode_table() {
  static const OpcodeTable table = [] {
    OpcodeTable t;
    register_integer_ops(t);
    register_move_ops(t);
    register_float_ops(t);
    register_conversion_ops(t);
    register_compare_ops(t);
    register_memory_ops(t);
    register_control_ops(t);
    register_warp_ops(t);
    register_atomic_ops(t);
    register_mbarrier_ops(t);
    return t;
  }();
  return table;
}

std::string Program::where(const Function& f, const Inst& inst) const {
  const SourcePoint& p = f.sources[inst.source];
  std::string text = "PTX line " + std::to_string(p.ptx_line);
  auto file = files.find(p.file);
  if (p.file != 0 && p.line != 0 && file != files.end())
    text = file->second + ":" + std::to_string(p.line) + " (" + text + ")";
  return text;
}

namespace {

uint64_t align_up(uint64_t value, uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

uint64_t alignment(const ptx::Variable& v) {
  return v.align ? uint64_t(v.align) : std::max<uint64_t>(1, uint64_t(ptx::type_size(v.type)));
}

// Where a symbol lives and its address (or offset) in its space.
struct Symbol {
  Space space;
  uint64_t value;
  bool local = false;  // value is an offset in the frame's locals
  bool kernel_param = false;
};

// The module layout's key of a .shared variable declared in a function's body.
std::string function_scope_name(const std::string& function, const std::string& variable) {
  return function + "/" + variable;  // '/' cannot appear in PTX identifiers
}

struct ModuleLayout {
  std::unordered_map<std::string, Symbol> symbols;  // module scope
  // Call tables (PTX ISA "call": an array initialised with function names, an indirect
  // call's flist): the functions each names.
  std::unordered_map<std::string, std::vector<uint32_t>> call_tables;
  uint64_t static_shared = 0;
  bool has_dynamic_shared = false;
  uint64_t dynamic_shared_offset = 0;
  // Functions whose definition has other parameters or results than a declaration of them:
  // declarations of linked modules (the driver's linker joins machine code and checks no
  // prototype), by name.
  std::unordered_multimap<std::string, const ptx::Function*> other_prototypes;
};

class FunctionDecoder final : public DecodeContext {
 public:
  FunctionDecoder(const ptx::Function& source, Function& out, const ModuleLayout& layout,
                  const std::unordered_map<std::string, uint32_t>& functions,
                  const std::vector<const ptx::Function*>& sources, const Program& program)
      : source_(source), out_(out), layout_(layout), functions_(functions), sources_(sources) {
    serial_ = program.serial;
    sm_ = program.sm;
    version_major_ = program.version_major;
    version_minor_ = program.version_minor;
  }

  void run() {
    out_.name = source_.name;
    out_.is_entry = source_.is_entry;
    out_.is_declaration = source_.is_declaration;
    out_.ptx_line = source_.line;
    std::copy(std::begin(source_.reqntid), std::end(source_.reqntid), out_.reqntid);
    std::copy(std::begin(source_.maxntid), std::end(source_.maxntid), out_.maxntid);
    out_.maxnreg = source_.maxnreg;
    lay_out_registers();
    lay_out_params();
    lay_out_locals();
    if (out_.is_declaration) return;
    const auto& table = opcode_table();
    const std::vector<ptx::Instruction> body = contract_multiply_adds(source_);
    out_.code.reserve(body.size());
    for (const auto& ins : body) {
      instruction_ = &ins;
      Inst inst;
      // Float forms of shared opcodes (add.f32) have decoders of their own ("add.float").
      auto decoder = table.end();
      for (const auto& m : ins.modifiers)
        if (m == "f32" || m == "f64" || m == "f16" || m == "f16x2" || m == "bf16" || m == "bf16x2")
          decoder = table.find(ins.opcode + ".float");
      if (decoder == table.end()) decoder = table.find(ins.opcode);
      if (decoder == table.end()) unsupported();
      if (!ins.guard.empty()) {
        inst.guard = reg_named(ins.guard);
        inst.guard_negated = ins.guard_negated;
      }
      decoder->second(*this, inst);
      if (inst.run == nullptr) unsupported();
      inst.source = uint32_t(out_.sources.size());
      out_.sources.push_back({ins.line, ins.loc_file, ins.loc_line, ins.loc_column});
      out_.code.push_back(inst);
    }
    out_.special_base = special_base_;
    out_.slot_count = next_slot_;
    compute_reconvergence();
  }

  // ---- DecodeContext
  uint32_t reg(const Operand& o) override {
    if (o.kind != Operand::Kind::Register) error("expects a register, got '" + text(o) + "'");
    return reg_named(o.name);
  }

  uint32_t value(const Operand& o, const std::string& type) override {
    switch (o.kind) {
      case Operand::Kind::Register:
        return reg(o);
      case Operand::Kind::Integer:
        return constant(integer_bits(o.bits, type));
      case Operand::Kind::Float:
        return constant(float_bits(o, type));
      case Operand::Kind::Symbol: {
        if (auto f = functions_.find(o.name); f != functions_.end() && !is_data(o.name))
          return constant(function_address(serial_, f->second));  // mov.u64 %rd, f
        Symbol s = symbol(o.name);
        if (s.kernel_param)
          error("the address of kernel parameter '" + o.name + "' is not supported");
        if (s.local) return local_constant(s.value);
        return constant(s.value);
      }
      default:
        error("unexpected operand '" + text(o) + "'");
    }
  }

  Space address(const Operand& o, Space space, Inst& inst, int base_index) override {
    if (o.kind != Operand::Kind::Address) error("expects an [address], got '" + text(o) + "'");
    inst.offset = o.offset;
    if (o.name.empty()) {
      inst.op[base_index] = constant(0);
      return Space::Generic;
    }
    if (o.base_is_register) {
      inst.op[base_index] = reg_named(o.name);
      return Space::Generic;
    }
    if (functions_.count(o.name) && !is_data(o.name))
      error("'" + o.name + "' is a function: its address holds no data to access");
    Symbol s = symbol(o.name);
    if (space != Space::Generic && space != s.space &&
        !(space == Space::Global && s.space == Space::Const))
      error("symbol '" + o.name + "' is not in the instruction's state space");
    if (s.kernel_param) {
      inst.op[base_index] = kNoSlot;
      inst.offset += int64_t(s.value);
    } else {
      inst.op[base_index] = s.local ? local_constant(s.value) : constant(s.value);
    }
    return s.space;
  }

  uint32_t label(const Operand& o) override {
    if (o.kind != Operand::Kind::Symbol) error("expects a label, got '" + text(o) + "'");
    auto it = source_.labels.find(o.name);
    if (it == source_.labels.end()) error("unknown label '" + o.name + "'");
    return uint32_t(it->second);
  }

  uint32_t call_site(const Operand& callee, const Operand* results, const Operand* arguments,
                     const Operand* targets) override {
    CallSite site;
    const std::vector<ptx::Variable>*params = nullptr, *returns = nullptr;
    const ptx::Function* target = nullptr;  // a direct call's callee
    std::string name;                       // what the messages call the callee
    if (callee.kind == Operand::Kind::Register) {
      if (!targets || targets->kind != Operand::Kind::Symbol)
        error("an indirect call through '" + callee.name +
              "' names its targets: a .callprototype, a .calltargets or a call table");
      require(20, 2, 1);
      site.indirect = true;
      site.pointer = reg(callee);
      site.signature = targets->name;
      name = "'" + targets->name + "'";
      if (auto p = source_.prototypes.find(targets->name); p != source_.prototypes.end()) {
        params = &p->second.params, returns = &p->second.returns;
      } else {
        site.allowed = call_targets(targets->name);
        const ptx::Function& first = *sources_[site.allowed.front()];
        params = &first.params, returns = &first.returns;
      }
    } else {
      if (callee.kind != Operand::Kind::Symbol) error("calls a function or a register");
      if (targets) error("a direct call of '" + callee.name + "' names call targets");
      auto it = functions_.find(callee.name);
      if (it == functions_.end()) error("call of unknown function '" + callee.name + "'");
      target = sources_[it->second];
      site.callee = it->second;
      params = &target->params, returns = &target->returns;
      name = "'" + target->name + "'";
    }
    // A call as a linked module declared the callee, not as it is defined: the values both
    // have pass; a result the definition lacks is undefined (the caller's area keeps what it
    // held), as on hardware.
    bool other_prototype = false;
    if (target)
      for (auto [it, end] = layout_.other_prototypes.equal_range(target->name); it != end; ++it)
        other_prototype |=
            it->second->params.size() == (arguments ? arguments->elements.size() : 0) &&
            it->second->returns.size() == (results ? results->elements.size() : 0);
    auto copies = [&](const Operand* list, const std::vector<ptx::Variable>& formals,
                      bool into_callee, std::vector<ParamCopy>& out) {
      size_t given = list ? list->elements.size() : 0;
      if (given != formals.size() && !other_prototype)
        error("call of " + name + " passes " + std::to_string(given) + " " +
              (into_callee ? "arguments" : "results") + ", it declares " +
              std::to_string(formals.size()));
      given = std::min(given, formals.size());
      uint64_t callee_offset = into_callee ? 0 : params_size(*params);
      for (size_t i = 0; i < given; ++i) {
        const ptx::Variable& formal = formals[i];
        ParamCopy copy;
        copy.size = formal.bytes();
        // The callee's side: a register of its body, or its .param area (an indirect call's
        // is the target's, Function::formal_params/formal_returns, found when it runs).
        uint64_t& callee_place = into_callee ? copy.to : copy.from;
        (into_callee ? copy.to_place : copy.from_place) =
            formal.space == Space::Reg ? ParamCopy::kRegister : ParamCopy::kParamArea;
        if (formal.space == Space::Reg) {
          callee_place = target ? callee_register(*target, formal.name) : kNoSlot;
        } else {
          callee_offset = align_up(callee_offset, alignment(formal));
          callee_place = callee_offset;
          callee_offset += copy.size;
        }
        // The caller's side: one of its .param variables, a register, or (arguments) a constant.
        const Operand& actual = list->elements[i];
        uint64_t& caller_place = into_callee ? copy.from : copy.to;
        ParamCopy::Place& caller_kind = into_callee ? copy.from_place : copy.to_place;
        if (actual.kind == Operand::Kind::Symbol) {
          Symbol s = symbol(actual.name);
          if (s.space != Space::Param || s.kernel_param)
            error("'" + actual.name + "' is not a .param of this function");
          caller_kind = ParamCopy::kParamArea, caller_place = s.value;
        } else if (actual.kind == Operand::Kind::Register) {
          if (copy.size > 8) error("'" + actual.name + "' passed for a .param byte array");
          caller_kind = ParamCopy::kRegister, caller_place = reg(actual);
        } else if (into_callee &&
                   (actual.kind == Operand::Kind::Integer || actual.kind == Operand::Kind::Float)) {
          if (copy.size > 8) error("a constant passed for a .param byte array");
          caller_kind = ParamCopy::kConstant;
          caller_place = actual.kind == Operand::Kind::Integer
                             ? integer_bits(actual.bits, formal.type)
                             : float_bits(actual, formal.type);
        } else {
          error("call operands must be .param variables, registers or (arguments) constants");
        }
        out.push_back(copy);
      }
    };
    copies(arguments, *params, true, site.arguments);
    copies(results, *returns, false, site.results);
    out_.calls.push_back(std::move(site));
    return uint32_t(out_.calls.size() - 1);
  }

  uint32_t special(uint32_t which) const override { return special_base_ + which; }

 private:
  static std::string text(const Operand& o) {
    switch (o.kind) {
      case Operand::Kind::Register:
      case Operand::Kind::Symbol:
        return o.name;
      case Operand::Kind::Integer:
        return std::to_string(int64_t(o.bits));
      case Operand::Kind::Address:
        return "[" + o.name + "]";
      default:
        return "...";
    }
  }

  static uint64_t integer_bits(uint64_t bits, const std::string& type) {
    if (type == "f32") {
      float f = float(int64_t(bits));
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    if (type == "f64") {
      double d = double(int64_t(bits));
      std::memcpy(&bits, &d, 8);
      return bits;
    }
    int size = ptx::type_size(type);
    return size >= 8 || size == 0 ? bits : bits & ((uint64_t(1) << (8 * size)) - 1);
  }

  // As ptxas: .f32 and .f64 take any float literal by value (a 0d literal rounded to
  // float, a 0f literal widened); a bit-size type takes the bits of a literal of its
  // own size (.b32 a 0f literal, .b64 a 0d or decimal one); other types take none.
  uint64_t float_bits(const Operand& o, const std::string& type) const {
    bool single = o.float_width == 32;
    if ((type == "b32" || type == "f32") && single) return o.bits;  // bits kept, NaNs too
    if ((type == "b64" || type == "f64") && !single) return o.bits;
    if (type == "f64") {
      float f;
      uint32_t b = uint32_t(o.bits);
      std::memcpy(&f, &b, 4);
      double d = f;
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      return bits;
    }
    if (type == "f32") {
      double d;
      std::memcpy(&d, &o.bits, 8);
      float f = float(d);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    error(std::string(single ? "a 32-bit" : "a 64-bit") + " float literal where ." + type +
          " is expected");
  }

  uint32_t reg_named(const std::string& name) {
    auto it = registers_.find(name);
    if (it != registers_.end()) return it->second;
    uint32_t special = special_register(name);
    if (special != kSpecialRegisterCount) return special_base_ + special;
    error("undeclared register '" + name + "'");
  }

  uint32_t constant(uint64_t value) {
    auto it = constants_.find(value);
    if (it != constants_.end()) return it->second;
    uint32_t slot = next_slot_++;
    constants_[value] = slot;
    out_.constants.emplace_back(slot, value);
    return slot;
  }

  uint32_t local_constant(uint64_t offset) {
    for (const auto& l : out_.local_symbols)
      if (l.offset == offset) return l.slot;
    uint32_t slot = next_slot_++;
    out_.local_symbols.push_back({slot, offset});
    return slot;
  }

  Symbol symbol(const std::string& name) const {
    if (auto it = params_.find(name); it != params_.end()) return it->second;
    if (auto it = locals_.find(name); it != locals_.end()) return it->second;
    if (auto it = layout_.symbols.find(name); it != layout_.symbols.end()) return it->second;
    error("unknown symbol '" + name + "'");
  }

  // Whether `name` is a variable here (which a function's name never is in valid PTX).
  bool is_data(const std::string& name) const {
    return params_.count(name) || locals_.count(name) || layout_.symbols.count(name);
  }

  // An indirect call's flist: a .calltargets label of this function or a call table (PTX ISA
  // "call"); the functions it lists, which the manual requires to share one signature.
  std::vector<uint32_t> call_targets(const std::string& label) const {
    std::vector<uint32_t> listed;
    if (auto t = source_.calltargets.find(label); t != source_.calltargets.end()) {
      for (const auto& f : t->second.functions) {
        auto it = functions_.find(f);
        if (it == functions_.end())
          error(".calltargets '" + label + "' names '" + f + "', which is not a function");
        listed.push_back(it->second);
      }
    } else if (auto table = layout_.call_tables.find(label); table != layout_.call_tables.end()) {
      listed = table->second;
    } else {
      error("'" + label + "' is not a .callprototype, a .calltargets or a call table");
    }
    if (listed.empty()) error("call targets '" + label + "' name no function");
    const ptx::Function& first = *sources_[listed.front()];
    for (uint32_t i : listed) {
      const ptx::Function& f = *sources_[i];
      if (!same_signature(f.params, first.params) || !same_signature(f.returns, first.returns))
        error("call targets '" + label + "': '" + f.name + "' and '" + first.name +
              "' have different signatures");
    }
    return listed;
  }

  static bool same_signature(const std::vector<ptx::Variable>& a,
                             const std::vector<ptx::Variable>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].space != b[i].space || a[i].bytes() != b[i].bytes()) return false;
    return true;
  }

  // The bytes of a .param list (its .reg parameters are registers, not in the area).
  static uint64_t params_size(const std::vector<ptx::Variable>& params) {
    uint64_t size = 0;
    for (const auto& p : params)
      if (p.space == Space::Param) size = align_up(size, alignment(p)) + p.bytes();
    return size;
  }

  // A .reg parameter's slot in the callee's frame: registers take slots in declaration order
  // (lay_out_registers), and the parser puts .reg parameters first.
  uint32_t callee_register(const ptx::Function& callee, const std::string& name) const {
    for (size_t i = 0; i < callee.registers.size(); ++i)
      if (callee.registers[i].name == name) return uint32_t(i);
    return kNoSlot;  // a declaration without a body: calling it faults before any copy
  }

  void lay_out_registers() {
    for (const auto& r : source_.registers) registers_[r.name] = next_slot_++;
    out_.register_count = next_slot_;
    special_base_ = next_slot_;
    next_slot_ += kSpecialRegisterCount;
  }

  void lay_out_params() {
    uint64_t offset = 0;
    auto formal = [&](const ptx::Variable& p, uint64_t at) -> Formal {
      if (p.space == Space::Reg) {  // a declaration has no registers: calling it faults first
        auto it = registers_.find(p.name);
        return {ParamCopy::kRegister, it == registers_.end() ? kNoSlot : it->second, p.bytes()};
      }
      return {ParamCopy::kParamArea, at, p.bytes()};
    };
    for (const auto& p : source_.params) {
      if (p.space == Space::Reg) {  // a register of the body
        out_.formal_params.push_back(formal(p, 0));
        continue;
      }
      offset = align_up(offset, alignment(p));
      out_.formal_params.push_back(formal(p, offset));
      params_[p.name] = {Space::Param, offset, false, source_.is_entry};
      out_.param_offsets.push_back(offset);
      out_.param_sizes.push_back(p.bytes());
      offset += p.bytes();
    }
    if (source_.is_entry) {
      out_.kernel_param_bytes = offset;
      offset = 0;  // the per-thread area holds only call blocks' .param
    }
    for (const auto& r : source_.returns) {
      if (r.space == Space::Reg) {
        out_.formal_returns.push_back(formal(r, 0));
        continue;
      }
      offset = align_up(offset, alignment(r));
      out_.formal_returns.push_back(formal(r, offset));
      params_[r.name] = {Space::Param, offset, false, false};
      out_.return_offsets.push_back(offset);
      out_.return_sizes.push_back(r.bytes());
      offset += r.bytes();
    }
    for (const auto& c : source_.call_params) {
      offset = align_up(offset, alignment(c));
      params_[c.name] = {Space::Param, offset, false, false};
      offset += c.bytes();
    }
    out_.param_bytes = align_up(offset, 8);
  }

  void lay_out_locals() {
    uint64_t offset = 0;
    for (const auto& l : source_.locals) {
      offset = align_up(offset, alignment(l));
      locals_[l.name] = {Space::Local, offset, true, false};
      offset += l.bytes();
    }
    // Function-scope .shared (LLVM's "demoted" variables): laid out with the module's.
    for (const auto& s : source_.shared)
      locals_[s.name] = layout_.symbols.at(function_scope_name(source_.name, s.name));
    out_.local_bytes = align_up(offset, 16);
  }

  // Reconvergence at the immediate post-dominator of each branch's block.
  void compute_reconvergence();

  const ptx::Function& source_;
  Function& out_;
  const ModuleLayout& layout_;
  const std::unordered_map<std::string, uint32_t>& functions_;
  const std::vector<const ptx::Function*>& sources_;
  std::unordered_map<std::string, uint32_t> registers_;
  std::unordered_map<uint64_t, uint32_t> constants_;
  std::unordered_map<std::string, Symbol> params_, locals_;
  uint32_t next_slot_ = 0, special_base_ = 0;
  uint32_t serial_ = 0;  // the program's, for functions' addresses
};

void FunctionDecoder::compute_reconvergence() {
  const auto& code = out_.code;
  const uint32_t n = uint32_t(code.size());
  // Basic blocks: starts at 0, at every label, after every control instruction.
  std::vector<char> leader(n + 1, 0);
  leader[0] = 1;
  for (const auto& [name, pc] : source_.labels) leader[pc] = 1;
  for (uint32_t pc = 0; pc < n; ++pc)
    if (code[pc].is_control) leader[pc + 1] = 1;
  std::vector<uint32_t> starts, block_of(n + 1);
  for (uint32_t pc = 0; pc < n; ++pc) {
    if (leader[pc]) starts.push_back(pc);
    block_of[pc] = uint32_t(starts.size() - 1);
  }
  const uint32_t blocks = uint32_t(starts.size()), exit = blocks;  // node `blocks` is EXIT
  block_of[n] = exit;
  std::vector<std::vector<uint32_t>> successors(blocks + 1), predecessors(blocks + 1);
  for (uint32_t b = 0; b < blocks; ++b) {
    uint32_t last = (b + 1 < blocks ? starts[b + 1] : n) - 1;
    const Inst& inst = code[last];
    std::vector<uint32_t> next;
    // Control instructions say where they go through target/aux (see ops/control.cpp):
    // aux 1 = branch to target, 2 = leaves the function, 0 = falls through.
    bool falls = !inst.is_control || inst.guard != kNoSlot || inst.aux == 0;
    if (inst.is_control && inst.aux == 1) next.push_back(block_of[inst.target]);
    if (inst.is_control && inst.aux == 2) next.push_back(exit);
    if (falls) next.push_back(last + 1 < n ? block_of[last + 1] : exit);
    for (uint32_t s : next) {
      successors[b].push_back(s);
      predecessors[s].push_back(b);
    }
  }
  // Post-dominators: dominators of the reversed graph rooted at EXIT (Cooper, Harvey, Kennedy).
  std::vector<uint32_t> order, number(blocks + 1, UINT32_MAX);
  std::vector<char> seen(blocks + 1, 0);
  std::function<void(uint32_t)> visit = [&](uint32_t b) {
    seen[b] = 1;
    for (uint32_t p : predecessors[b])
      if (!seen[p]) visit(p);
    number[b] = uint32_t(order.size());
    order.push_back(b);
  };
  visit(exit);
  const uint32_t undefined = UINT32_MAX;
  std::vector<uint32_t> ipdom(blocks + 1, undefined);
  ipdom[exit] = exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (number[a] < number[b]) a = ipdom[a];
      while (number[b] < number[a]) b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      uint32_t b = *it;
      if (b == exit) continue;
      uint32_t best = undefined;
      for (uint32_t s : successors[b]) {
        if (ipdom[s] == undefined) continue;
        best = best == undefined ? s : intersect(s, best);
      }
      if (best != undefined && ipdom[b] != best) ipdom[b] = best, changed = true;
    }
  }
  for (uint32_t b = 0; b < blocks; ++b) {
    uint32_t last = (b + 1 < blocks ? starts[b + 1] : n) - 1;
    Inst& inst = out_.code[last];
    if (!inst.is_control) continue;
    uint32_t p = ipdom[b];  // undefined: no path to EXIT (an endless loop)
    inst.reconverge = (p == undefined || p == exit) ? n : starts[p];
  }
}

// Module scope: .global/.const storage, one .shared layout for the module
// (function-scope .shared included, under function_scope_name).
ModuleLayout lay_out_module(const ptx::Module& module, Program& program,
                            const std::unordered_map<std::string, uint32_t>& functions) {
  ModuleLayout layout;
  uint64_t shared = 0, dynamic_align = 16;
  std::vector<std::string> dynamic;
  auto add_shared = [&](const ptx::Variable& v, const std::string& key) {
    if (v.is_extern || (v.is_array && v.count == 0)) {
      dynamic.push_back(key);
      dynamic_align = std::max(dynamic_align, alignment(v));
      return;
    }
    shared = align_up(shared, alignment(v));
    layout.symbols[key] = {Space::Shared, shared};
    shared += v.bytes();
  };
  for (const auto& f : module.functions)
    for (const auto& v : f.shared) add_shared(v, function_scope_name(f.name, v.name));
  for (const auto& v : module.globals) {
    if (v.space == Space::Shared) {
      add_shared(v, v.name);
    } else if (v.space == Space::Global || v.space == Space::Const) {
      if (v.is_extern) throw PtxError(v.line, "extern variable '" + v.name + "' is not defined");
      auto g = std::make_unique<Program::Global>();
      g->name = v.name;
      g->space = v.space;
      g->align = alignment(v);
      g->storage =
          v.init.empty() ? std::vector<uint8_t>(std::max<uint64_t>(v.bytes(), 1), 0) : v.init;
      layout.symbols[v.name] = {v.space, uint64_t(reinterpret_cast<uintptr_t>(g->storage.data()))};
      program.globals.push_back(std::move(g));
    } else {
      throw PtxError(v.line, "module-scope variable '" + v.name + "' in an unsupported space");
    }
  }
  // Initialisers naming other variables or functions: their addresses, now that all exist. An
  // array of functions' addresses is also a call table, an indirect call's list of targets.
  size_t g = 0;
  for (const auto& v : module.globals) {
    if (v.space != Space::Global && v.space != Space::Const) continue;
    std::vector<uint32_t> table;
    for (const auto& [offset, name] : v.init_symbols) {
      if (ptx::type_size(v.type) != 8)
        throw PtxError(v.line, "initialiser of '" + v.name + "' stores the address of '" + name +
                                   "' in ." + v.type + " elements; addresses take 8 bytes");
      uint64_t address = 0;
      if (auto it = layout.symbols.find(name); it != layout.symbols.end()) {
        address = it->second.value;
        if (it->second.space == Space::Shared) address += kSharedWindow;
      } else if (auto f = functions.find(name); f != functions.end()) {
        address = function_address(program.serial, f->second);
        table.push_back(f->second);
      } else {
        throw PtxError(v.line, "initialiser of '" + v.name + "' names unknown '" + name + "'");
      }
      std::memcpy(program.globals[g]->storage.data() + offset, &address, 8);
    }
    if (!table.empty() && table.size() == v.init_symbols.size())
      layout.call_tables[v.name] = std::move(table);
    ++g;
  }
  layout.static_shared = shared;
  layout.has_dynamic_shared = !dynamic.empty();
  layout.dynamic_shared_offset = align_up(shared, dynamic_align);
  for (const auto& key : dynamic)
    layout.symbols[key] = {Space::Shared, layout.dynamic_shared_offset};
  return layout;
}

}  // namespace

std::unique_ptr<Program> decode(const ptx::Module& module) {
  auto program = std::make_unique<Program>();
  program->target = module.target;
  program->version_major = module.version_major;
  program->version_minor = module.version_minor;
  program->files = module.files;
  if (module.target.rfind("sm_", 0) != 0)
    throw PtxError(1, "unsupported .target '" + module.target + "'");
  program->sm = std::atoi(module.target.c_str() + 3);

  // One Function per name; a definition wins over declarations.
  std::vector<const ptx::Function*> sources;
  for (const auto& f : module.functions) {
    auto it = program->by_name.find(f.name);
    if (it == program->by_name.end()) {
      program->by_name[f.name] = uint32_t(sources.size());
      sources.push_back(&f);
    } else if (sources[it->second]->is_declaration && !f.is_declaration) {
      sources[it->second] = &f;
    } else if (!f.is_declaration) {
      throw PtxError(f.line, "function '" + f.name + "' is defined twice");
    }
  }
  if (sources.size() > kMaxFunctions)
    throw PtxError(1, "more than " + std::to_string(kMaxFunctions) + " functions");
  ModuleLayout layout = lay_out_module(module, *program, program->by_name);
  auto same_prototype = [](const ptx::Function& a, const ptx::Function& b) {
    auto sizes = [](const std::vector<ptx::Variable>& v) {
      std::vector<uint64_t> out;
      for (const auto& x : v) out.push_back(x.bytes());
      return out;
    };
    return sizes(a.params) == sizes(b.params) && sizes(a.returns) == sizes(b.returns);
  };
  for (const auto& f : module.functions)
    if (const ptx::Function* d = sources[program->by_name.at(f.name)];
        f.is_declaration && !d->is_declaration && !same_prototype(f, *d))
      layout.other_prototypes.emplace(f.name, &f);
  for (const auto* f : sources) {
    auto function = std::make_unique<Function>();
    FunctionDecoder(*f, *function, layout, program->by_name, sources, *program).run();
    program->functions.push_back(std::move(function));
  }
  // Kernels: static shared (the module's layout) and the deepest chain of locals over calls.
  // A recursive chain has no deepest, nor has an indirect call through a .callprototype (its
  // targets are not known; one through .calltargets or a call table counts its listed
  // functions): their frames take a stack of kRecursionStackBytes per thread beyond the rest,
  // as CUDA's default stack size (cuCtxSetLimit's STACK_SIZE), and a thread that needs more
  // faults as hardware does.
  bool recursive = false;
  std::function<uint64_t(uint32_t, std::vector<char>&)> depth = [&](uint32_t index,
                                                                    std::vector<char>& on_path) {
    const Function& f = *program->functions[index];
    if (on_path[index]) {
      recursive = true;
      return uint64_t{0};
    }
    on_path[index] = 1;
    uint64_t deepest = 0;
    for (const auto& call : f.calls) {
      if (!call.indirect) deepest = std::max(deepest, depth(call.callee, on_path));
      for (uint32_t target : call.allowed) deepest = std::max(deepest, depth(target, on_path));
      if (call.indirect && call.allowed.empty()) recursive = true;
    }
    on_path[index] = 0;
    return f.local_bytes + deepest;
  };
  for (uint32_t i = 0; i < program->functions.size(); ++i) {
    Function& f = *program->functions[i];
    if (!f.is_entry) continue;
    std::vector<char> on_path(program->functions.size(), 0);
    recursive = false;
    f.max_local_bytes = depth(i, on_path) + (recursive ? kRecursionStackBytes : 0);
    f.static_shared_bytes = layout.static_shared;
    f.dynamic_shared_offset = layout.dynamic_shared_offset;
  }
  return program;
}

}  // namespace cudajit::sim
