// A PTX module as text says it: directives, declarations and instructions with
// their modifiers and operands, names resolved to their scope. The executor's
// decoder (exec/decoder.cpp) turns it into something that runs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudajit::sim::ptx {

// A malformed or unsupported module: the message names the PTX line.
class PtxError : public std::runtime_error {
 public:
  PtxError(int line, const std::string& message)
      : std::runtime_error("PTX line " + std::to_string(line) + ": " + message), line_(line) {}
  int line() const { return line_; }

 private:
  int line_;
};

enum class Space { Reg, Global, Const, Shared, Local, Param, Generic };

struct Operand {
  enum class Kind {
    Register,  // %r1 (or a special register, %tid.x), possibly !negated for predicates
    Integer,   // 42, -1, 0xff
    Float,     // 0f3F800000 (32-bit) or 0d... (64-bit); `bits` holds the pattern
    Symbol,    // a variable, a function or a label
    Address,   // [base+offset], base a register, a symbol or empty (absolute)
    Vector,    // {a, b, c, d}
    List,      // (a, b) in call
    Sink,      // _
  };
  Kind kind = Kind::Integer;
  std::string name;  // Register, Symbol, Address base (empty: absolute address)
  bool base_is_register = false;
  bool negated = false;
  uint64_t bits = 0;  // Integer value (two's complement), Float pattern
  int float_width = 0;
  int64_t offset = 0;             // Address
  std::vector<Operand> elements;  // Vector, List
};

struct Instruction {
  std::string opcode;                  // "add"
  std::vector<std::string> modifiers;  // {"s32"} for add.s32, {"rn", "f32"} for add.rn.f32
  std::vector<Operand> operands;
  std::string guard;  // "" or the predicate register of @%p / @!%p
  bool guard_negated = false;
  int line = 0;
  int loc_file = 0, loc_line = 0, loc_column = 0;  // the last .loc before it (0: none)

  bool has(const std::string& modifier) const;
};

struct Variable {
  Space space = Space::Global;
  std::string type;  // "b8", "u32", "f64", "pred" ...
  std::string name;  // unique within its function (scoped names renamed)
  int align = 0;     // 0: the type's size
  uint64_t element_size = 0;
  uint64_t count = 1;  // array elements (0 for extern .shared x[])
  bool is_array = false;
  bool is_extern = false;
  std::vector<uint8_t> init;  // initial bytes (empty: zero)
  // Initialiser entries naming a symbol (generic(sym) or sym): byte offset -> symbol.
  std::vector<std::pair<uint64_t, std::string>> init_symbols;
  int line = 0;
  uint64_t bytes() const { return element_size * count; }
};

// `label: .callprototype (returns) _ (params) .noreturn;` in a body: the signature of the
// targets of the indirect calls that name the label (PTX ISA 11.3.3).
struct Prototype {
  std::vector<Variable> returns, params;
  bool noreturn = false;
  int line = 0;
};

// `label: .calltargets f, g;` in a body: every target of the indirect calls naming the label.
struct CallTargets {
  std::vector<std::string> functions;
  int line = 0;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool is_declaration = false;  // .extern, or no body
  std::vector<Variable> params;
  std::vector<Variable> returns;
  std::vector<Variable> registers;    // every .reg, with %r<N> expanded
  std::vector<Variable> locals;       // .local in the body
  std::vector<Variable> shared;       // .shared in the body
  std::vector<Variable> call_params;  // .param declared in the body's { } blocks
  std::vector<Instruction> body;
  std::map<std::string, size_t> labels;            // label -> index of the next instruction
  std::map<std::string, Prototype> prototypes;     // by label
  std::map<std::string, CallTargets> calltargets;  // by label
  uint32_t reqntid[3] = {0, 0, 0}, maxntid[3] = {0, 0, 0};
  int maxnreg = 0;
  int line = 0;
};

struct Module {
  int version_major = 0, version_minor = 0;
  std::string target;  // "sm_90"
  int address_size = 64;
  std::vector<Variable> globals;  // .global, .const, .shared at module scope
  std::vector<Function> functions;
  std::map<int, std::string> files;  // .file index -> file name

  const Function* find_function(const std::string& name) const;
};

// Parses PTX text; throws PtxError naming the line of the first problem.
Module parse(const std::string& text);

// Size in bytes of a PTX fundamental type ("u32" -> 4); 0 for an unknown name.
int type_size(const std::string& type);

}  // namespace cudajit::sim::ptx
