// PTX text -> ptx::Module. Block-scoped names ({ .param .b32 param0; ... } around
// each call) are renamed "param0#7" so that every name is unique in its function.
#include <cctype>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "lexer.hpp"
#include "module.hpp"

namespace cudajit::sim::ptx {

bool Instruction::has(const std::string& modifier) const {
  for (const auto& m : modifiers)
    if (m == modifier) return true;
  return false;
}

const Function* Module::find_function(const std::string& name) const {
  for (const auto& f : functions)
    if (f.name == name && !f.is_declaration) return &f;
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

int type_size(const std::string& type) {
  static const std::unordered_map<std::string, int> sizes = {
      {"b8", 1},   {"u8", 1},  {"s8", 1},  {"b16", 2}, {"u16", 2},  {"s16", 2},   {"f16", 2},
      {"bf16", 2}, {"b32", 4}, {"u32", 4}, {"s32", 4}, {"f32", 4},  {"f16x2", 4}, {"bf16x2", 4},
      {"b64", 8},  {"u64", 8}, {"s64", 8}, {"f64", 8}, {"pred", 1}, {"b128", 16}};
  auto it = sizes.find(type);
  return it == sizes.end() ? 0 : it->second;
}

namespace {

using Kind = Token::Kind;

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Module parse_module() {
    while (!at_end()) top_level();
    if (module_.version_major == 0) throw PtxError(1, "missing .version directive");
    if (module_.target.empty()) throw PtxError(1, "missing .target directive");
    return std::move(module_);
  }

 private:
  // ---- tokens
  const Token& peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool at_end() const { return peek().kind == Kind::End; }
  const Token& next() {
    const Token& t = peek();
    if (!at_end()) ++pos_;
    return t;
  }
  bool accept(const char* text) {
    if (peek().kind != Kind::String && peek().text == text) return ++pos_, true;
    return false;
  }
  void expect(const char* text) {
    if (!accept(text))
      throw PtxError(peek().line,
                     std::string("expected '") + text + "', found '" + describe(peek()) + "'");
  }
  static std::string describe(const Token& t) {
    return t.kind == Kind::End ? "end of file" : t.text;
  }
  std::string identifier(const char* what) {
    const Token& t = next();
    if (t.kind != Kind::Identifier)
      throw PtxError(t.line, std::string("expected ") + what + ", found '" + describe(t) + "'");
    return t.text;
  }
  // A name being declared: PTX's identifier grammar, [a-zA-Z][a-zA-Z0-9_$]* or
  // [_$%][a-zA-Z0-9_$]+ (the lexer also takes '.', which opcodes need).
  std::string declared_name(const char* what) {
    int line = peek().line;
    std::string name = identifier(what);
    if (sink_names_ && name == "_") return name;  // a prototype's unnamed parameter
    auto word = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
    };
    bool ok = std::isalpha(static_cast<unsigned char>(name[0]))
                  ? true
                  : name.size() > 1 && (name[0] == '_' || name[0] == '$' || name[0] == '%');
    for (size_t i = 1; ok && i < name.size(); ++i) ok = word(name[i]);
    if (!ok) throw PtxError(line, std::string("invalid identifier '") + name + "' for " + what);
    return name;
  }
  int64_t integer() {
    bool negative = accept("-");
    const Token& t = next();
    if (t.kind != Kind::Number) throw PtxError(t.line, "expected a number, found '" + t.text + "'");
    Operand o = number(t);
    if (o.kind != Operand::Kind::Integer) throw PtxError(t.line, "expected an integer");
    return negative ? -int64_t(o.bits) : int64_t(o.bits);
  }
  // Skips the rest of a line-terminated directive (.loc, .file, .version ... have no ';').
  void skip_line(int line) {
    while (!at_end() && peek().line == line) next();
  }

  static Operand number(const Token& t) {
    Operand o;
    const std::string& s = t.text;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
      bool single = s[1] == 'f' || s[1] == 'F';
      if (s.size() != (single ? 10u : 18u)) throw PtxError(t.line, "malformed float '" + s + "'");
      o.kind = Operand::Kind::Float;
      o.float_width = single ? 32 : 64;
      o.bits = std::stoull(s.substr(2), nullptr, 16);
      return o;
    }
    std::string digits = s;
    if (!digits.empty() && (digits.back() == 'U' || digits.back() == 'u')) digits.pop_back();
    try {
      if (digits.find_first_of(".eE") != std::string::npos &&
          !(digits.size() > 1 && (digits[1] == 'x' || digits[1] == 'X'))) {
        double value = std::stod(digits);
        o.kind = Operand::Kind::Float;
        o.float_width = 64;
        std::memcpy(&o.bits, &value, 8);
        return o;
      }
      size_t used = 0;
      if (digits.size() > 2 && (digits[1] == 'x' || digits[1] == 'X'))
        o.bits = std::stoull(digits.substr(2), &used, 16), used += 2;
      else if (digits.size() > 2 && (digits[1] == 'b' || digits[1] == 'B'))
        o.bits = std::stoull(digits.substr(2), &used, 2), used += 2;
      else if (digits.size() > 1 && digits[0] == '0')
        o.bits = std::stoull(digits, &used, 8);
      else
        o.bits = std::stoull(digits, &used, 10);
      if (used != digits.size()) throw std::invalid_argument(s);
    } catch (const std::logic_error&) {
      throw PtxError(t.line, "malformed number '" + s + "'");
    }
    o.kind = Operand::Kind::Integer;
    return o;
  }

  // ---- module level
  void top_level() {
    const Token& t = peek();
    int line = t.line;
    if (accept(".version")) {
      std::string v = next().text;
      size_t dot = v.find('.');
      if (dot == std::string::npos) throw PtxError(line, "malformed .version '" + v + "'");
      module_.version_major = std::stoi(v.substr(0, dot));
      module_.version_minor = std::stoi(v.substr(dot + 1));
      skip_line(line);
    } else if (accept(".target")) {
      module_.target = identifier("a target");
      skip_line(line);  // ", debug", ", texmode_independent"
    } else if (accept(".address_size")) {
      module_.address_size = int(integer());
      if (module_.address_size != 64)
        throw PtxError(line, ".address_size " + std::to_string(module_.address_size) +
                                 " is not supported (only 64)");
    } else if (accept(".file")) {
      int index = int(integer());
      if (peek().kind != Kind::String) throw PtxError(line, ".file without a file name");
      module_.files[index] = next().text;
      skip_line(line);
    } else if (accept(".section")) {
      next();  // the section's name: DWARF, not executed
      skip_braces();
    } else if (accept(".pragma")) {
      while (!accept(";")) next();
    } else {
      declaration_or_function();
    }
  }

  void skip_braces() {
    expect("{");
    for (int depth = 1; depth > 0 && !at_end();) {
      const Token& t = next();
      if (t.kind == Kind::Punct) depth += t.text == "{" ? 1 : t.text == "}" ? -1 : 0;
    }
  }

  void declaration_or_function() {
    bool is_extern = false;
    for (;;) {
      if (accept(".visible") || accept(".weak") || accept(".common")) continue;
      if (accept(".extern")) {
        is_extern = true;
        continue;
      }
      break;
    }
    int line = peek().line;
    if (accept(".entry")) return function(true, is_extern, line);
    if (accept(".func")) return function(false, is_extern, line);
    Space space;
    if (!state_space(space))
      throw PtxError(line, "unknown directive or statement '" + describe(peek()) + "'");
    Variable v = variable(space, line);
    v.is_extern = is_extern;
    expect(";");
    module_.globals.push_back(std::move(v));
  }

  bool state_space(Space& space) {
    static const std::pair<const char*, Space> spaces[] = {
        {".reg", Space::Reg},       {".global", Space::Global}, {".const", Space::Const},
        {".shared", Space::Shared}, {".local", Space::Local},   {".param", Space::Param}};
    for (auto [name, s] : spaces)
      if (accept(name)) return space = s, true;
    return false;
  }

  // After the state space: [.ptr .global] [.align N] [.vN] .type name[<N>|[N]] [= init]
  Variable variable(Space space, int line) {
    Variable v;
    v.space = space;
    v.line = line;
    int vector = 1;
    for (;;) {
      if (accept(".align")) {
        v.align = int(integer());
      } else if (accept(".ptr") || accept(".global") || accept(".shared") || accept(".const") ||
                 accept(".local")) {
        // .ptr .global .align N on kernel parameters: pointer hints
      } else if (accept(".v2")) {
        vector = 2;
      } else if (accept(".v4")) {
        vector = 4;
      } else {
        break;
      }
    }
    std::string type = identifier("a type");
    if (type.empty() || type[0] != '.' || type_size(type.substr(1)) == 0)
      throw PtxError(line, "unknown type '" + type + "'");
    v.type = type.substr(1);
    v.element_size = uint64_t(type_size(v.type)) * vector;
    for (;;) {  // kernel parameters: .type .ptr [.space] [.align N] name
      if (accept(".ptr") || accept(".global") || accept(".shared") || accept(".const") ||
          accept(".local"))
        continue;
      if (accept(".align")) {
        v.align = int(integer());
        continue;
      }
      break;
    }
    v.name = declared_name("a name");
    if (accept("[")) {
      v.is_array = true;
      if (accept("]")) {
        v.count = 0;
      } else {
        v.count = uint64_t(integer());
        expect("]");
      }
      while (accept("[")) {  // multi-dimensional: a flat array of the product
        v.count *= uint64_t(integer());
        expect("]");
      }
    }
    if (accept("=")) initializer(v);
    return v;
  }

  void initializer(Variable& v) {
    std::vector<Operand> values;
    auto value = [&]() {
      if (peek().kind == Kind::Identifier) {
        std::string name = identifier("a symbol");
        if (name == "generic") {
          expect("(");
          name = identifier("a symbol");
          expect(")");
        }
        Operand o;
        o.kind = Operand::Kind::Symbol;
        o.name = name;
        values.push_back(o);
        return;
      }
      bool negative = accept("-");
      Operand o = number(next());
      if (negative) {
        if (o.kind == Operand::Kind::Integer)
          o.bits = uint64_t(-int64_t(o.bits));
        else
          o.bits ^= o.float_width == 32 ? 0x80000000ull : 0x8000000000000000ull;
      }
      values.push_back(o);
    };
    std::function<void()> list = [&]() {
      if (accept("{")) {
        if (!accept("}")) {
          do list();
          while (accept(","));
          expect("}");
        }
      } else {
        value();
      }
    };
    list();
    uint64_t size = uint64_t(type_size(v.type));
    if (!v.is_array && values.size() > 1 && v.element_size != size * values.size())
      throw PtxError(v.line, "initialiser of '" + v.name + "' has too many values");
    if (v.is_array && v.count == 0) v.count = values.size() * size / v.element_size;
    v.init.assign(v.bytes(), 0);
    for (size_t i = 0; i < values.size(); ++i) {
      uint64_t offset = i * size;
      if (offset + size > v.init.size())
        throw PtxError(v.line, "initialiser of '" + v.name + "' has more values than elements");
      const Operand& o = values[i];
      if (o.kind == Operand::Kind::Symbol) {
        v.init_symbols.emplace_back(offset, o.name);
        continue;
      }
      uint64_t bits = o.bits;
      if (o.kind == Operand::Kind::Float && v.type == "f32" && o.float_width == 64) {
        double d;
        std::memcpy(&d, &bits, 8);
        float f = float(d);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        bits = b;
      }
      std::memcpy(&v.init[offset], &bits, size);
    }
  }

  // ---- functions
  void function(bool is_entry, bool is_extern, int line) {
    Function f;
    f.is_entry = is_entry;
    f.line = line;
    if (!is_entry && accept("(")) {
      parameter_list(f.returns);
    }
    f.name = declared_name("a function name");
    if (accept("(")) parameter_list(f.params);
    for (const auto& p : f.params)
      if (is_entry && p.space == Space::Reg)
        throw PtxError(p.line, "kernel parameter '" + p.name + "' must be in .param space");
    for (;;) {  // performance directives
      if (accept(".maxntid")) {
        dims(f.maxntid);
      } else if (accept(".reqntid")) {
        dims(f.reqntid);
      } else if (accept(".maxnreg")) {
        f.maxnreg = int(integer());
      } else if (accept(".minnctapersm") || accept(".maxnctapersm")) {
        integer();
      } else if (accept(".noreturn")) {
      } else if (accept(".pragma")) {
        while (!accept(";")) next();
      } else {
        break;
      }
    }
    if (accept(";") || is_extern) {
      f.is_declaration = true;
      accept(";");
    } else {
      body(f);
    }
    module_.functions.push_back(std::move(f));
  }

  void dims(uint32_t (&d)[3]) {
    d[0] = d[1] = d[2] = 1;
    for (int i = 0; i < 3; ++i) {
      d[i] = uint32_t(integer());
      if (!accept(",")) break;
    }
  }

  // Formal parameters and returns live in .param or .reg space (PTX ISA 5.1.6.4, 7.1: ".reg"
  // ones are legacy, at least 32 bits wide, scalars).
  void parameter_list(std::vector<Variable>& params) {
    if (accept(")")) return;
    do {
      int line = peek().line;
      if (accept(".reg")) {
        Variable v = variable(Space::Reg, line);
        if (v.is_array || v.element_size != uint64_t(type_size(v.type)))
          throw PtxError(line, "a .reg parameter must be a scalar ('" + v.name + "')");
        if (v.type != "pred" && v.element_size < 4)
          throw PtxError(line, "a .reg parameter must be at least 32 bits wide ('" + v.name + "')");
        params.push_back(std::move(v));
        continue;
      }
      expect(".param");
      params.push_back(variable(Space::Param, line));
    } while (accept(","));
    expect(")");
  }

  // ---- bodies
  void body(Function& f) {
    expect("{");
    scopes_.assign(1, {});
    register_names_.clear();
    for (const auto* list : {&f.params, &f.returns})
      for (const auto& p : *list) {
        scopes_[0][p.name] = p.name;
        if (p.space == Space::Reg) {  // a register of the body, first among its registers
          register_names_.insert(p.name);
          f.registers.push_back(p);
        }
      }
    int loc_file = 0, loc_line = 0, loc_column = 0;
    for (;;) {
      const Token& t = peek();
      int line = t.line;
      if (at_end()) throw PtxError(line, "function '" + f.name + "' has no closing '}'");
      if (accept("}")) {
        scopes_.pop_back();
        if (scopes_.empty()) break;
        continue;
      }
      if (accept("{")) {
        scopes_.emplace_back();
        ++scope_serial_;
        continue;
      }
      if (accept(".loc")) {
        loc_file = int(integer());
        loc_line = int(integer());
        loc_column = int(integer());
        skip_line(line);  // ", function_name ..., inlined_at ..."
        continue;
      }
      if (accept(".pragma")) {
        while (!accept(";")) next();
        continue;
      }
      Space space;
      if (state_space(space)) {
        declare(f, space, line);
        continue;
      }
      if (t.kind == Kind::Identifier && peek(1).text == ":" && peek(1).kind == Kind::Punct) {
        // `name: .callprototype ...;` and `name: .calltargets ...;` describe the targets of
        // indirect calls (call ..., %fptr, (...), name); other labels mark instructions.
        if (peek(2).text == ".callprototype" || peek(2).text == ".calltargets") {
          call_target_directive(f);
          continue;
        }
        if (f.prototypes.count(t.text) || f.calltargets.count(t.text))
          throw PtxError(line, "label '" + t.text + "' is declared twice");
        f.labels[next().text] = f.body.size();
        next();
        continue;
      }
      Instruction ins = instruction();
      ins.loc_file = loc_file, ins.loc_line = loc_line, ins.loc_column = loc_column;
      f.body.push_back(std::move(ins));
    }
  }

  // label: .callprototype _ [(params)] [.noreturn];  label: .callprototype (ret) _ [(params)];
  // label: .calltargets f, g, ...;   (PTX ISA 11.3.2, 11.3.3; NVVM writes `()_` for no return)
  void call_target_directive(Function& f) {
    int line = peek().line;
    std::string label = next().text;
    next();  // ':'
    if (f.labels.count(label) || f.prototypes.count(label) || f.calltargets.count(label))
      throw PtxError(line, "label '" + label + "' is declared twice");
    if (accept(".calltargets")) {
      CallTargets targets;
      targets.line = line;
      do targets.functions.push_back(identifier("a function name"));
      while (accept(","));
      expect(";");
      f.calltargets[label] = std::move(targets);
      return;
    }
    expect(".callprototype");
    Prototype p;
    p.line = line;
    sink_names_ = true;  // parameters may be named `_`
    if (accept("(")) parameter_list(p.returns);
    expect("_");
    if (accept("(")) parameter_list(p.params);
    sink_names_ = false;
    p.noreturn = accept(".noreturn");
    if (p.noreturn && !p.returns.empty())
      throw PtxError(line, ".noreturn prototype '" + label + "' has return parameters");
    expect(";");
    f.prototypes[label] = std::move(p);
  }

  void declare(Function& f, Space space, int line) {
    if (space == Space::Reg) {
      Variable proto = variable(Space::Reg, line);
      auto add = [&](Variable v) {
        if (v.is_array) throw PtxError(line, "register arrays are not supported");
        bind(v);
        register_names_.insert(v.name);
        f.registers.push_back(std::move(v));
      };
      auto expand = [&](Variable v) {
        if (accept("<")) {
          int64_t count = integer();
          expect(">");
          for (int64_t i = 0; i < count; ++i) {
            Variable r = v;
            r.name = v.name + std::to_string(i);
            add(r);
          }
        } else {
          add(v);
        }
      };
      expand(proto);
      while (accept(",")) {
        Variable v = proto;
        v.name = declared_name("a register name");
        expand(v);
      }
      expect(";");
      return;
    }
    Variable v = variable(space, line);
    expect(";");
    bind(v);
    switch (space) {
      case Space::Local:
        f.locals.push_back(std::move(v));
        break;
      case Space::Shared:
        f.shared.push_back(std::move(v));
        break;
      case Space::Param:
        f.call_params.push_back(std::move(v));
        break;
      default:
        throw PtxError(line, "a ." + std::string(space == Space::Global ? "global" : "const") +
                                 " variable inside a function is not supported");
    }
  }

  // Names declared in a nested block get a unique suffix.
  void bind(Variable& v) {
    std::string unique = scopes_.size() > 1 ? v.name + "#" + std::to_string(scope_serial_) : v.name;
    scopes_.back()[v.name] = unique;
    v.name = unique;
  }

  std::string resolve(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return found->second;
    }
    return name;
  }

  Instruction instruction() {
    Instruction ins;
    ins.line = peek().line;
    if (accept("@")) {
      ins.guard_negated = accept("!");
      ins.guard = resolve(identifier("a predicate"));
    }
    std::string word = identifier("an instruction");
    size_t dot = word.find('.');
    ins.opcode = word.substr(0, dot);
    while (dot != std::string::npos) {
      size_t next_dot = word.find('.', dot + 1);
      std::string modifier = word.substr(dot + 1, next_dot - dot - 1);
      // The executing CTA's shared memory is what .shared means without a scope.
      if (modifier == "shared::cta") modifier = "shared";
      ins.modifiers.push_back(modifier);
      dot = next_dot;
    }
    if (!accept(";")) {
      do ins.operands.push_back(operand());
      while (accept(","));
      expect(";");
    }
    return ins;
  }

  Operand operand() {
    Operand o;
    int line = peek().line;
    if (accept("[")) {
      o.kind = Operand::Kind::Address;
      if (peek().kind == Kind::Identifier) {
        o.name = resolve(identifier("an address"));
        o.base_is_register = o.name[0] == '%' || register_names_.count(o.name);
        if (accept("+"))
          o.offset = integer();
        else if (peek().text == "-")
          o.offset = integer();
      } else {
        o.offset = integer();
      }
      expect("]");
      return o;
    }
    if (accept("{")) {
      o.kind = Operand::Kind::Vector;
      do o.elements.push_back(operand());
      while (accept(","));
      expect("}");
      return o;
    }
    if (accept("(")) {
      o.kind = Operand::Kind::List;
      if (!accept(")")) {
        do o.elements.push_back(operand());
        while (accept(","));
        expect(")");
      }
      return o;
    }
    if (accept("!")) {
      o = operand();
      if (o.kind != Operand::Kind::Register) throw PtxError(line, "'!' before a non-predicate");
      o.negated = true;
      return o;
    }
    if (peek().text == "-" || peek().kind == Kind::Number) {
      bool negative = accept("-");
      o = number(next());
      if (negative) {
        if (o.kind == Operand::Kind::Integer)
          o.bits = uint64_t(-int64_t(o.bits));
        else
          o.bits ^= o.float_width == 32 ? 0x80000000ull : 0x8000000000000000ull;
      }
      return o;
    }
    std::string name = identifier("an operand");
    if (name == "_") {
      o.kind = Operand::Kind::Sink;
    } else if (name == "WARP_SZ") {  // "a run-time immediate constant": 32 on every target
      o.kind = Operand::Kind::Integer;
      o.bits = 32;
      return o;
    } else {
      o.name = resolve(name);
      bool is_register = name[0] == '%' || register_names_.count(o.name);
      o.kind = is_register ? Operand::Kind::Register : Operand::Kind::Symbol;
    }
    if (accept("|")) {  // setp's second destination: %p|%q
      Operand second = operand();
      Operand pair;
      pair.kind = Operand::Kind::Vector;
      pair.elements = {o, second};
      pair.name = "|";
      return pair;
    }
    return o;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  Module module_;
  std::vector<std::unordered_map<std::string, std::string>> scopes_;
  std::unordered_set<std::string> register_names_;  // the function's registers, unique names
  int scope_serial_ = 0;
  bool sink_names_ = false;  // parsing a .callprototype's parameters
};

}  // namespace

Module parse(const std::string& text) { return Parser(tokenize(text)).parse_module(); }

}  // namespace cudajit::sim::ptx
