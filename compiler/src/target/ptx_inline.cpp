#include "ptx_inline.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <utility>

#include "cudajit/compiler/errors.hpp"

namespace cudajit::target::detail {

namespace {

using std::string_view;

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

bool is_identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

string_view trim(string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<string_view> split_lines(string_view text) {
  std::vector<string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// The identifiers in `text` that are not register names (%r1), in order.
std::vector<string_view> identifiers(string_view text) {
  std::vector<string_view> found;
  for (std::size_t i = 0; i < text.size();) {
    if (!is_identifier_start(text[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_identifier_char(text[end])) ++end;
    const bool register_name = i > 0 && text[i - 1] == '%';
    const bool part_of_number = i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1]));
    if (!register_name && !part_of_number) found.push_back(text.substr(i, end - i));
    i = end;
  }
  return found;
}

// A top-level entity of a PTX module, as LLVM prints it.
struct TopLevel {
  std::string name;
  bool is_function = false;
  bool is_definition = false;
  std::string header;  // for a function: up to the line before "{"
  std::string body;    // for a function definition: between "{" and "}"
  std::string text;    // all of it
};

// The name declared by an entity's header: the identifier after .func or
// .entry (and a parenthesised result), or a variable's last identifier
// before its initialiser.
std::string entity_name(string_view header, bool is_function) {
  if (is_function) {
    const std::size_t keyword = header.find(".func");
    string_view rest =
        header.substr(keyword == string_view::npos ? header.find(".entry") + 6 : keyword + 5);
    if (trim(rest).starts_with('(')) {  // the result, "(.param .b32 func_retval0)"
      const std::size_t close = rest.find(')');
      if (close == string_view::npos) return {};
      rest.remove_prefix(close + 1);
    }
    const std::vector<string_view> names = identifiers(rest);
    return names.empty() ? std::string() : std::string(names.front());
  }
  const string_view declarator = header.substr(0, header.find_first_of("=;"));
  const std::vector<string_view> names = identifiers(declarator);
  return names.empty() ? std::string() : std::string(names.back());
}

// A brace that opens or closes a function body is the whole line, in column
// 0; nested blocks are indented.
bool is_top_level(string_view line, string_view brace) {
  return line.starts_with(brace) && trim(line) == brace;
}

std::vector<TopLevel> top_level_entities(string_view ptx) {
  const std::vector<string_view> lines = split_lines(ptx);
  std::vector<TopLevel> entities;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const string_view line = lines[i];
    if (line.empty() || std::isspace(static_cast<unsigned char>(line.front())) != 0 ||
        line.starts_with("//") || line.starts_with(".version") || line.starts_with(".target") ||
        line.starts_with(".address_size")) {
      continue;
    }
    TopLevel entity;
    entity.is_function =
        line.find(".func") != string_view::npos || line.find(".entry") != string_view::npos;
    // The header runs to a line ending in ";" (a declaration or a variable)
    // or to the line before a "{" line (a function definition).
    std::size_t end = i;
    bool has_body = false;
    for (; end < lines.size(); ++end) {
      if (is_top_level(lines[end], "{")) {
        has_body = true;
        break;
      }
      entity.header.append(lines[end]).push_back('\n');
      if (trim(lines[end]).ends_with(";")) break;
    }
    entity.text = entity.header;
    if (has_body) {
      std::size_t close = end + 1;
      while (close < lines.size() && !is_top_level(lines[close], "}")) {
        entity.body.append(lines[close]).push_back('\n');
        ++close;
      }
      entity.text += "{\n" + entity.body + "}\n";
      end = close;
    }
    entity.name = entity_name(entity.header, entity.is_function);
    entity.is_definition =
        entity.is_function ? has_body : entity.header.find(".extern") == std::string::npos;
    entities.push_back(std::move(entity));
    i = end;
  }
  return entities;
}

// "ld.param.f32 %f1, [name_param_0];" (LLVM 19 writes "[name_param_0+0]"):
// the destination register and the parameter read.
struct ParamLoad {
  int bits = 0;
  string_view destination;
  string_view parameter;
};

// The width of a PTX scalar type suffix (f32, b64, u32, ...); 0 for others.
int scalar_bits(string_view type) {
  if (type.size() != 3 || std::string_view("bfus").find(type[0]) == string_view::npos) return 0;
  if (type.substr(1) == "32") return 32;
  if (type.substr(1) == "64") return 64;
  return 0;
}

// "[name]" or "[name+0]" to "name"; empty for anything else.
string_view bracketed_name(string_view operand) {
  operand = trim(operand);
  if (!operand.starts_with('[') || !operand.ends_with(']')) return {};
  operand = operand.substr(1, operand.size() - 2);
  if (operand.ends_with("+0")) operand.remove_suffix(2);
  return trim(operand);
}

// Splits "op.type a, b;" into the type suffix after `op` and the operands.
bool split_instruction(string_view line, string_view op, string_view& type, string_view& first,
                       string_view& second) {
  line = trim(line);
  if (!line.starts_with(op) || !line.ends_with(';')) return false;
  line.remove_prefix(op.size());
  line.remove_suffix(1);
  const std::size_t space = line.find_first_of(" \t");
  const std::size_t comma = line.find(',');
  if (space == string_view::npos || comma == string_view::npos || comma < space) return false;
  type = line.substr(0, space);
  first = trim(line.substr(space, comma - space));
  second = trim(line.substr(comma + 1));
  return true;
}

std::optional<ParamLoad> param_load(string_view line) {
  string_view type, destination, source;
  if (!split_instruction(line, "ld.param.", type, destination, source)) return std::nullopt;
  const string_view parameter = bracketed_name(source);
  if (scalar_bits(type) == 0 || parameter.empty()) return std::nullopt;
  return ParamLoad{scalar_bits(type), destination, parameter};
}

// "st.param.f32 [func_retval0+0], %f5;": the width and the value stored.
std::optional<std::pair<int, string_view>> result_store(string_view line) {
  string_view type, target, value;
  if (!split_instruction(line, "st.param.", type, target, value)) return std::nullopt;
  if (scalar_bits(type) == 0 || bracketed_name(target) != "func_retval0") return std::nullopt;
  return std::pair{scalar_bits(type), value};
}

bool mentions(string_view line, string_view name) {
  for (string_view identifier : identifiers(line)) {
    if (identifier == name) return true;
  }
  return false;
}

// The parameter names of a function header, or nullopt when one is not a
// 32- or 64-bit scalar or the result is not one (or void).
std::optional<std::vector<std::string>> scalar_parameters(string_view header,
                                                          const std::string& name) {
  const std::size_t at_name = header.find(name);
  const string_view result = header.substr(0, at_name);
  if (result.find(".param") != string_view::npos &&
      (result.find('[') != string_view::npos || result.find(".align") != string_view::npos)) {
    return std::nullopt;
  }
  std::vector<std::string> parameters;
  for (string_view line : split_lines(header.substr(at_name + name.size()))) {
    line = trim(line);
    if (!line.starts_with(".param")) continue;
    if (line.ends_with(',')) line.remove_suffix(1);
    // ".param .b32 name"
    const std::vector<string_view> words = identifiers(line);
    if (words.size() != 3 || scalar_bits(words[1]) == 0) return std::nullopt;
    parameters.emplace_back(words[2]);
  }
  return parameters;
}

// The entities `root` refers to, with those they refer to, in `entities`'s
// order.
std::vector<PtxEntity> needed_entities(const std::vector<TopLevel>& entities,
                                       const std::string& root, string_view body) {
  std::set<std::string> wanted;
  std::vector<string_view> pending = identifiers(body);
  while (!pending.empty()) {
    const string_view name = pending.back();
    pending.pop_back();
    if (name == root || wanted.contains(std::string(name))) continue;
    bool known = false;
    for (const TopLevel& entity : entities) {
      if (entity.name != name) continue;
      known = true;
      const std::vector<string_view> more = identifiers(entity.text);
      pending.insert(pending.end(), more.begin(), more.end());
    }
    if (known) wanted.insert(std::string(name));
  }
  std::vector<PtxEntity> needs;
  for (const TopLevel& entity : entities) {
    if (wanted.contains(entity.name)) {
      needs.push_back({entity.name, entity.is_definition, entity.text});
    }
  }
  return needs;
}

// Renames a copy's registers (declared by its .reg lines), labels ($L...)
// and local memory (__local_depot...) with `prefix`.
class Renamer {
 public:
  Renamer(string_view body, std::string prefix) : prefix_(std::move(prefix)) {
    for (string_view line : split_lines(body)) {
      line = trim(line);
      if (!line.starts_with(".reg")) continue;
      for (std::size_t at = line.find('%'); at != string_view::npos; at = line.find('%', at + 1)) {
        std::size_t end = at + 1;
        while (end < line.size() && is_identifier_char(line[end])) ++end;
        registers_.insert(std::string(line.substr(at + 1, end - at - 1)));
      }
    }
  }

  std::string operator()(string_view line) const {
    std::string out;
    out.reserve(line.size() + 16);
    for (std::size_t i = 0; i < line.size();) {
      if (!is_identifier_start(line[i]) && line[i] != '%') {
        out.push_back(line[i++]);
        continue;
      }
      const bool register_name = line[i] == '%';
      std::size_t end = i + (register_name ? 1 : 0);
      while (end < line.size() && is_identifier_char(line[end])) ++end;
      const string_view token = line.substr(i, end - i);
      const bool part_of_number = i > 0 && std::isdigit(static_cast<unsigned char>(line[i - 1]));
      if (register_name && is_own_register(token.substr(1))) {
        out += "%" + prefix_;
        out += token.substr(1);
      } else if (!part_of_number && token.starts_with("$L")) {
        out += "$" + prefix_;
        out += token.substr(1);
      } else if (!part_of_number && token.starts_with("__local_depot")) {
        out += token;
        out += "_" + prefix_;
      } else {
        out += token;
      }
      i = end;
    }
    return out;
  }

  std::string label(string_view name) const { return "$" + prefix_ + std::string(name); }

 private:
  // %r12 is the register r12 of the parameterised declaration %r<N>.
  bool is_own_register(string_view name) const {
    if (registers_.contains(std::string(name))) return true;
    while (!name.empty() && std::isdigit(static_cast<unsigned char>(name.back())) != 0) {
      name.remove_suffix(1);
    }
    return registers_.contains(std::string(name));
  }

  std::string prefix_;
  std::set<std::string> registers_;
};

// The body is kept as a template, renamed once when parsed: kCopyPrefix
// stands where each copy's prefix goes, kArgument followed by an index
// character where an argument goes, and kResult where the result goes.
constexpr char kCopyPrefix = '\x01';
constexpr char kArgument = '\x02';
constexpr char kResult = '\x03';
constexpr const char* kSpecial = "\x01\x02\x03";

std::string mov(int bits, string_view destination, string_view source) {
  return "\tmov.b" + std::to_string(bits) + " \t" + std::string(destination) + ", " +
         std::string(source) + ";\n";
}

// The template of a copy of `body`: parameter reads become moves from the
// arguments, result writes moves to the result, returns branches to the end.
std::string copy_template(string_view body, const std::vector<std::string>& parameters) {
  const Renamer rename(body, std::string(1, kCopyPrefix));
  const std::string end_label = rename.label("end");
  std::string code = "\t{\n";
  for (string_view line : split_lines(body)) {
    const std::optional<ParamLoad> load = param_load(line);
    const auto parameter =
        load ? std::find(parameters.begin(), parameters.end(), load->parameter) : parameters.end();
    if (parameter != parameters.end()) {
      const char index = static_cast<char>('0' + (parameter - parameters.begin()));
      code += mov(load->bits, rename(load->destination), std::string{kArgument, index});
    } else if (auto store = result_store(line)) {
      code += mov(store->first, std::string(1, kResult), rename(store->second));
    } else if (trim(line) == "ret;") {
      code += "\tbra.uni \t" + end_label + ";\n";
    } else {
      code += rename(line) + "\n";
    }
  }
  return code + end_label + ":\n\t}\n";
}

// Appends one copy of `function` computing `result` from `arguments`.
void expand(const PtxFunction& function, string_view result,
            const std::vector<string_view>& arguments, int instance, std::string& out) {
  if (arguments.size() != function.parameters.size()) {
    throw LlvmError("PTX inlining: " + function.name + " takes " +
                    std::to_string(function.parameters.size()) + " arguments, the call passes " +
                    std::to_string(arguments.size()));
  }
  const std::string prefix = "cj" + std::to_string(instance) + "_";
  const std::string& code = function.code;
  std::size_t at = 0;
  while (at < code.size()) {
    const std::size_t special = code.find_first_of(kSpecial, at);
    if (special == std::string::npos) {
      out.append(code, at);
      break;
    }
    out.append(code, at, special - at);
    if (code[special] == kArgument) {
      out += arguments[code[special + 1] - '0'];
      at = special + 2;
    } else {
      out += code[special] == kCopyPrefix ? string_view(prefix) : result;
      at = special + 1;
    }
  }
}

}  // namespace

std::optional<PtxFunction> parse_ptx_function(const std::string& ptx, const std::string& function) {
  const std::vector<TopLevel> entities = top_level_entities(ptx);
  const TopLevel* definition = nullptr;
  for (const TopLevel& entity : entities) {
    if (entity.is_function && entity.is_definition && entity.name == function) definition = &entity;
  }
  if (definition == nullptr) {
    throw LlvmError("PTX inlining: the PTX generated for " + function + " does not define it");
  }
  std::optional<std::vector<std::string>> parameters =
      scalar_parameters(definition->header, function);
  if (!parameters) return std::nullopt;
  // Each parameter only read by ld.param, the result only written by
  // st.param: what the copy replaces with moves.
  for (string_view line : split_lines(definition->body)) {
    for (const std::string& parameter : *parameters) {
      if (!mentions(line, parameter)) continue;
      std::optional<ParamLoad> load = param_load(line);
      if (!load || load->parameter != parameter) return std::nullopt;
    }
    if (mentions(line, "func_retval0") && !result_store(line)) return std::nullopt;
  }
  if (parameters->size() > 9) return std::nullopt;  // an index is one character
  std::string code = copy_template(definition->body, *parameters);
  return PtxFunction{function, std::move(*parameters), std::move(code),
                     needed_entities(entities, function, definition->body)};
}

std::string inline_ptx_functions(const std::string& kernel_ptx, const PtxFunctionLookup& lookup) {
  std::set<std::pair<std::string, bool>> present;  // (name, is_definition)
  for (const TopLevel& entity : top_level_entities(kernel_ptx)) {
    present.insert({entity.name, entity.is_definition});
  }
  const string_view marker = kInlineMarker;
  std::string added;  // the entities the copies need
  std::string code;   // the kernel's text after the header, markers expanded
  std::string header;
  bool in_header = true;
  int instances = 0;
  for (string_view line : split_lines(kernel_ptx)) {
    if (in_header) {
      header.append(line).push_back('\n');
      if (line.starts_with(".address_size")) in_header = false;
      continue;
    }
    const std::size_t at = line.find(marker);
    if (at == string_view::npos) {
      code.append(line).push_back('\n');
      continue;
    }
    // "// cudajit-inline __nv_sinf %f2, %f1"
    string_view operands = trim(line.substr(at + marker.size()));
    const std::size_t space = operands.find_first_of(" \t");
    const std::string name(operands.substr(0, space));
    operands = space == string_view::npos ? string_view() : operands.substr(space);
    std::vector<string_view> arguments;
    while (!trim(operands).empty()) {
      const std::size_t comma = operands.find(',');
      arguments.push_back(trim(operands.substr(0, comma)));
      operands = comma == string_view::npos ? string_view() : operands.substr(comma + 1);
    }
    const PtxFunction* function = lookup(name);
    if (function == nullptr || arguments.empty()) {
      throw LlvmError("PTX inlining: no PTX for " + name + " (line: " + std::string(line) + ")");
    }
    const string_view result = arguments.front();
    arguments.erase(arguments.begin());
    for (const PtxEntity& entity : function->needs) {
      const bool defined = present.contains({entity.name, true});
      if (defined || present.contains({entity.name, entity.is_definition})) continue;
      present.insert({entity.name, entity.is_definition});
      added += entity.text;
    }
    expand(*function, result, arguments, instances++, code);
  }
  if (instances == 0) return kernel_ptx;
  return header + "\n" + added + code;
}

}  // namespace cudajit::target::detail
