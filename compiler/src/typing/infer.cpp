// Type inference for one function: local variables take the unified type of
// every value assigned to them (iterated to a fixpoint, so types merge where
// control flow merges), then a final pass types every expression.
#include <algorithm>
#include <functional>

#include "typer.hpp"

namespace cudajit::typing {

using ir::Node;
using ir::NodeKind;

void type_error(const Node& node, const std::string& message) {
  throw CompileError(message, node.loc);
}

namespace {

std::string describe(const Type& t) { return t.str(); }

// The integer a node folds to, for tuple indices: a literal or a negated one.
std::optional<int64_t> literal_int(const Node& n) {
  if (n.kind == NodeKind::Int) return n.int_value;
  if (n.kind == NodeKind::Unary && n.text == "-" && n.child(0).kind == NodeKind::Int)
    return -n.child(0).int_value;
  return std::nullopt;
}

class FunctionTyper {
 public:
  FunctionTyper(ProgramTyper& program, const ir::Module& module, TypedFunction& out)
      : program_(program), module_(module), out_(out) {}

  void run() {
    const ir::Function& fn = *out_.function;
    for (size_t i = 0; i < fn.params.size(); ++i) out_.locals[fn.params[i]] = out_.arg_types[i];
    // A function that returns no value returns None: known before any round, for its own
    // recursive calls (walk(a, i + 1) as a statement).
    if (!returns_a_value(fn.body)) partial_return_ = Type::none();
    // Types only widen in a finite lattice, so this settles quickly.
    for (int round = 0; round < 32; ++round) {
      changed_ = false;
      block(fn.body);
      if (!changed_) break;
    }
    final_ = true;
    block(fn.body);
    if (!return_type_) return_type_ = Type::none();
    // Falling off the end returns None: with numbers returned elsewhere, an optional number.
    if (!return_type_->is_none() && !always_returns(fn.body)) {
      if (auto optional = unify(*return_type_, Type::none())) return_type_ = *optional;
    }
    if (!return_type_->is_none() && !return_type_->is_optional() && !always_returns(fn.body))
      throw CompileError("function '" + python_name(fn.name) +
                             "' returns a value on some paths and falls off "
                             "the end (returning None) on others; add a final return",
                         fn.loc);
    out_.return_type = *return_type_;
  }

 private:
  // --- statements -----------------------------------------------------------------

  void block(const std::vector<ir::NodePtr>& stmts) {
    for (const auto& s : stmts) stmt(*s);
  }

  void stmt(const Node& s) {
    switch (s.kind) {
      case NodeKind::Assign: {
        if (ir::is_character_constant(s.child(1))) {
          character_store(s.child(0), s.child(1));
          return;
        }
        // A variable may hold an optional number (x = f() of a function that may return
        // None); elsewhere one is used as its number.
        auto value =
            s.child(0).kind == NodeKind::Name ? expr_keep_optional(s.child(1)) : expr(s.child(1));
        assign(s.child(0), value, s);
        return;
      }
      case NodeKind::AugAssign: {
        const Node& target = s.child(0);
        auto current = expr(target);
        auto value = expr(s.child(1));
        std::optional<Type> result;
        if (current && value) result = binop_type(s, s.text, *current, *value);
        // Lowering computes `target op value` in this type, then stores it.
        if (final_ && result) out_.expr_types[&s] = *result;
        assign(target, result, s);
        return;
      }
      case NodeKind::If: {
        condition(s.child(0));
        // `if x is None:` of an x that is never None: only the other side is typed (and
        // lowered), as Numba prunes it.
        auto known = known_none_test(s.child(0));
        if (!known || *known) block(s.child(1).children);
        if (!known || !*known) block(s.child(2).children);
        if (final_ && known) out_.constants[&s] = *known;
        return;
      }
      case NodeKind::While:
        condition(s.child(0));
        ++loop_depth_;
        block(s.child(1).children);
        --loop_depth_;
        return;
      case NodeKind::For: {
        const Node& target = s.child(0);
        if (target.kind != NodeKind::Name) type_error(target, "a for loop target must be a name");
        for (size_t i = 1; i <= 3; ++i) {
          auto t = expr(s.child(i));
          if (t && !is_int_like(*t))
            type_error(s.child(i), "range() arguments must be integers, got " + describe(*t));
        }
        assign(target, Type::scalar(Scalar::Int64), s);
        ++loop_depth_;
        block(s.child(4).children);
        --loop_depth_;
        return;
      }
      case NodeKind::Break:
      case NodeKind::Continue:
        if (loop_depth_ == 0)
          type_error(s, std::string(s.kind == NodeKind::Break ? "'break'" : "'continue'") +
                            " outside a loop");
        return;
      case NodeKind::Pass:
        return;
      case NodeKind::Return: {
        Type t = Type::none();
        if (s.size() == 1) {
          auto v = expr_keep_optional(s.child(0));
          if (!v) return;
          t = *v;
        }
        if (!final_) {
          // What the returns show so far, for recursive calls of this function while it
          // is typed; conflicts are reported by the final pass below.
          auto widened = partial_return_ ? unify(*partial_return_, t) : std::optional<Type>(t);
          if (widened && (!partial_return_ || !(*widened == *partial_return_))) {
            partial_return_ = widened;
            changed_ = true;
          }
          return;
        }
        if (is_kernel() && !t.is_none())
          type_error(s,
                     "a kernel cannot return a value (kernels return None; write results "
                     "into an array argument)");
        if (t.is_array()) type_error(s, "a device function cannot return an array");
        if (!return_type_) {
          return_type_ = t;
        } else {
          auto u = unify(*return_type_, t);
          if (!u) {  // numba-cuda's words first where the function calls itself
            const std::string recursive =
                calls_itself_ ? "Return type of recursive function does not converge: " : "";
            type_error(s, recursive + "function '" + python_name(out_.function->name) +
                              "' returns " + describe(*return_type_) + " and " + describe(t) +
                              ", which do not unify");
          }
          return_type_ = *u;
        }
        return;
      }
      case NodeKind::ExprStmt:
        expr(s.child(0));
        return;
      case NodeKind::Raise:
        return;
      case NodeKind::Assert: {
        auto t = expr(s.child(0));
        if (t && !t->is_scalar())
          type_error(s,
                     "an assert's condition must be a number or bool, "
                     "got " +
                         t->str());
        return;
      }
      case NodeKind::Block:
        block(s.children);
        return;
      default:
        type_error(s, "unexpected node '" + std::string(ir::kind_name(s.kind)) +
                          "' where a statement was expected");
    }
  }

  bool is_kernel() const { return &out_ == kernel_; }

  void condition(const Node& c) {
    auto t = expr(c);
    if (t && !t->is_scalar())
      type_error(c, "the truth value of " + describe(*t) +
                        " is ambiguous; a condition must be a "
                        "scalar");
  }

  void assign(const Node& target, const std::optional<Type>& value, const Node& stmt) {
    switch (target.kind) {
      case NodeKind::Name: {
        if (!value) return;
        if (value->is_none()) type_error(stmt, "cannot assign the result of a call returning None");
        auto it = out_.locals.find(target.text);
        if (it == out_.locals.end()) {
          out_.locals[target.text] = *value;
          changed_ = true;
        } else if (it->second != *value) {
          auto u = unify(it->second, *value);
          if (!u)
            type_error(stmt, "variable '" + std::string(ir::source_name(target.text)) +
                                 "' is assigned " + describe(it->second) + " and " +
                                 describe(*value) + ", which do not unify");
          if (*u != it->second) {
            it->second = *u;
            changed_ = true;
          }
        }
        if (final_) out_.expr_types[&target] = out_.locals[target.text];
        return;
      }
      case NodeKind::Subscript: {
        auto element = subscript(target, /*store=*/true);
        if (element && element->is_record()) {  // a[i] = a[j]: the record's bytes are copied
          if (final_) out_.expr_types[&target] = *element;
          if (value &&
              (!value->is_record() || value->with_readonly(false) != element->with_readonly(false)))
            type_error(stmt, "cannot store " + describe(*value) + " into an array of " +
                                 describe(element->with_readonly(false)));
          return;
        }
        if (element && element->is_record_array())
          type_error(stmt, "cannot assign to a view of records " + describe(*element) +
                               "; assign one record at a time");
        if (element && element->is_array()) {  // a[1:3] = x: x is stored in every element
          if (final_) out_.expr_types[&target] = *element;
          if (value && !value->is_scalar())
            type_error(stmt,
                       "only a number can be assigned to a slice (it is stored in every "
                       "element); got " +
                           describe(*value));
          if (value && is_complex(value->scalar()) && !is_complex(element->dtype()))
            type_error(stmt, "cannot store " + describe(*value) + " into an array of " +
                                 describe(Type::scalar(element->dtype())));
          return;
        }
        if (value)
          check_number_store(
              stmt, *value, element ? std::optional(element->scalar()) : std::nullopt,
              "an array element", [&] { return "an array of " + describe(*element); });
        return;
      }
      case NodeKind::Tuple: {
        if (!value) {
          for (const auto& c : target.children) assign(*c, std::nullopt, stmt);
          return;
        }
        if (!value->is_tuple() || value->elements().size() != target.size())
          type_error(stmt, "cannot unpack " + describe(*value) + " into " +
                               std::to_string(target.size()) + " targets");
        for (size_t i = 0; i < target.size(); ++i)
          assign(target.child(i), value->elements()[i], stmt);
        if (final_) out_.expr_types[&target] = *value;
        return;
      }
      case NodeKind::Attr:
        field_store(target, value, stmt);
        return;
      default:
        type_error(target, "cannot assign to this expression");
    }
  }

  // --- expressions ----------------------------------------------------------------

  // An expression's type. An optional number (a call of a function that may return None, or
  // a variable holding one) is used as its number, except where expr_keep_optional() types it.
  std::optional<Type> expr(const Node& n) { return typed(n, false); }
  std::optional<Type> expr_keep_optional(const Node& n) { return typed(n, true); }

  std::optional<Type> typed(const Node& n, bool keep_optional) {
    auto t = expr_uncached(n);
    if (t && t->is_optional() && !keep_optional) t = t->optional_value();
    if (final_) {
      if (!t) type_error(n, "could not infer the type of this expression");
      out_.expr_types[&n] = *t;
    }
    return t;
  }

  std::optional<Type> expr_uncached(const Node& n) {
    switch (n.kind) {
      case NodeKind::Int:
        return Type::scalar(Scalar::Int64);
      case NodeKind::Float:
        return Type::scalar(Scalar::Float64);
      case NodeKind::Bool:
        return Type::scalar(Scalar::Bool);
      case NodeKind::Complex:
        return Type::scalar(Scalar::Complex128);
      case NodeKind::Name: {
        auto it = out_.locals.find(n.text);
        if (it != out_.locals.end()) return it->second;
        if (final_)
          type_error(n, "variable '" + std::string(ir::source_name(n.text)) +
                            "' is used before it is assigned");
        return std::nullopt;
      }
      case NodeKind::BinOp: {
        auto a = expr(n.child(0));
        auto b = expr(n.child(1));
        if (!a || !b) return std::nullopt;
        return binop_type(n, n.text, *a, *b);
      }
      case NodeKind::Unary: {
        auto a = expr(n.child(0));
        if (!a) return std::nullopt;
        return unary_type(n, *a);
      }
      case NodeKind::Not: {
        auto a = expr(n.child(0));
        if (a && !a->is_scalar()) type_error(n, "'not' needs a scalar, got " + describe(*a));
        return Type::scalar(Scalar::Bool);
      }
      case NodeKind::And:
      case NodeKind::Or: {
        std::optional<Type> result;
        bool known = true;
        for (const auto& c : n.children) {
          auto t = expr(*c);
          if (!t) {
            known = false;
            continue;
          }
          if (!t->is_scalar())
            type_error(*c, "'and'/'or' operands must be scalars, got " + describe(*t));
          result = result ? unify(*result, *t) : t;
        }
        if (!known) return std::nullopt;
        return result;
      }
      case NodeKind::Compare: {
        bool known = true;
        std::vector<std::optional<Type>> operands;
        for (const auto& c : n.children) {
          operands.push_back(expr(*c));
          known = known && operands.back().has_value();
        }
        if (!known) return Type::scalar(Scalar::Bool);
        for (size_t i = 0; i + 1 < operands.size(); ++i) {
          const Type &a = *operands[i], &b = *operands[i + 1];
          const std::string& op = n.ops[i];
          if (op == "in" || op == "notin") {  // a number in a tuple of numbers
            if (!b.is_tuple())
              type_error(n, "'in' needs a tuple on its right in kernels; got " + describe(b));
            for (const Type& item : b.elements())
              if (!a.is_scalar() || !item.is_scalar())
                type_error(n, "cannot compare " + describe(a) + " and " + describe(item) +
                                  " (an item of the tuple)");
            continue;
          }
          if (!a.is_scalar() || !b.is_scalar())
            type_error(n, "cannot compare " + describe(a) + " and " + describe(b));
          if (is_npdatetime(a.scalar()) || is_npdatetime(b.scalar())) {
            Scalar x = a.scalar(), y = b.scalar();
            if (is_datetime(x) != is_datetime(y) || is_timedelta(x) != is_timedelta(y) ||
                !common_datetime_unit(datetime_unit(x), datetime_unit(y)))
              type_error(n, "cannot compare " + describe(a) + " and " + describe(b) +
                                ": a datetime64 compares with a datetime64, a timedelta64 with "
                                "a timedelta64, in units that convert (Y and M, or W to as)");
            continue;
          }
          if ((is_complex(a.scalar()) || is_complex(b.scalar())) && op != "==" && op != "!=" &&
              op != "is" && op != "isnot")
            type_error(n, "complex numbers support only == and !=, not '" + op + "'");
        }
        return Type::scalar(Scalar::Bool);
      }
      case NodeKind::IfExp: {
        condition(n.child(0));
        auto a = expr(n.child(1));
        auto b = expr(n.child(2));
        if (!a || !b) return a ? a : b;
        auto u = unify(*a, *b);
        if (!u)
          type_error(n, "the branches of a conditional expression have types " + describe(*a) +
                            " and " + describe(*b) + ", which do not unify");
        return u;
      }
      case NodeKind::Tuple: {
        std::vector<Type> elements;
        bool known = true;
        for (const auto& c : n.children) {
          auto t = expr(*c);
          if (t) elements.push_back(*t);
          known = known && t.has_value();
        }
        if (!known) return std::nullopt;
        return Type::tuple(std::move(elements));
      }
      case NodeKind::Subscript:
        return subscript(n, /*store=*/false);
      case NodeKind::Attr:
        return attribute(n);
      case NodeKind::Method: {
        auto v = expr(n.child(0));
        if (!v) return std::nullopt;
        if (n.text.starts_with("reshape.") || n.text.starts_with("view."))
          return array_method(n, *v);
        if (n.text == "conjugate" && n.size() == 1 && v->is_scalar()) return v;
        // int.bit_count(): the ones of |x|, as Python counts them (an int).
        if (n.text == "bit_count" && n.size() == 1 && v->is_scalar() &&
            (is_integer(v->scalar()) || v->scalar() == Scalar::Bool))
          return Type::scalar(Scalar::Int64);
        type_error(n, describe(*v) + " has no method '" + n.text + "' in a kernel");
      }
      case NodeKind::Call: {
        if (ir::is_character_constant(n))
          type_error(n,
                     "strings are supported in kernels only as constants stored into an "
                     "element of a NumPy 'U' (str) or 'S' (bytes) array or into such a record "
                     "field: a[i] = 'abc', r.f = b'abc'");
        if (n.text == "isnone" || n.text == "notnone") return none_test(n);
        if (n.text.starts_with("overload.")) return overload(n);
        if (n.text.starts_with("choose.complex.")) return choose_complex(n);
        auto args = argument_types(n);
        if (!args) return std::nullopt;
        for (size_t i = 0; i < args->size(); ++i)
          if (((*args)[i].is_record() || (*args)[i].is_record_array()) && n.text != "len" &&
              n.text != "array.address" && !n.text.starts_with("debug."))
            type_error(i < n.size() ? n.child(i) : n, "records are not supported by '" + n.text +
                                                          "' (got " + describe((*args)[i]) +
                                                          "); pass one of their fields");
        return type_builtin_call(n, *args, out_);
      }
      case NodeKind::CallFn:
        return call_function(n);
      case NodeKind::Bytes:  // the data of cuda.const.array.*, read by lowering
        return Type::none();
      case NodeKind::Star:  // argument_types() reads it; anywhere else it is no value
        type_error(n, "*... unpacks a tuple only into a call's arguments");
      default:
        type_error(n, "unexpected node '" + std::string(ir::kind_name(n.kind)) +
                          "' where an expression was expected");
    }
  }

  // choose.complex.N: a NumPy math ufunc, which takes complex numbers where math's function
  // does not. Children: the N arguments as written, the call for real numbers, then cmath's
  // call for complex ones. Only the chosen call is typed (and so compiled, and lowered).
  std::optional<Type> choose_complex(const Node& n) {
    const size_t count = std::stoul(n.text.substr(15));
    bool complex = false;
    for (size_t i = 0; i < count; ++i) {
      auto t = expr(n.child(i));
      if (!t) return std::nullopt;
      complex = complex || (t->is_scalar() && is_complex(t->scalar()));
    }
    const size_t chosen = count + (complex ? 1 : 0);
    out_.constants[&n] = static_cast<int64_t>(chosen);
    return expr(n.child(chosen));
  }

  // overload.N: a device function declared with several signatures. Children: the N
  // arguments as written, then one converting call per signature. Only the call whose
  // conversions rank best is typed (and so compiled, and lowered): fewest unsafe, then
  // safe, then promoting conversions, the first declared of equals, as Numba picks.
  std::optional<Type> overload(const Node& n) {
    const size_t count = std::stoul(n.text.substr(9));
    std::vector<Type> args;
    for (size_t i = 0; i < count; ++i) {
      auto t = expr(n.child(i));
      if (!t) return std::nullopt;
      args.push_back(*t);
    }
    std::optional<size_t> best;
    ConversionRank best_rank;
    for (size_t c = count; c < n.size(); ++c) {
      auto params = declared_parameters(n.child(c));
      auto rank = params ? rank_conversions(args, *params) : std::nullopt;
      if (rank && (!best || *rank < best_rank)) {
        best = c;
        best_rank = *rank;
      }
    }
    if (!best) {
      std::string given;
      for (const Type& t : args) given += (given.empty() ? "" : ", ") + describe(t);
      type_error(n, "no declared signature of this device function takes (" + given + ")");
    }
    out_.constants[&n] = static_cast<int64_t>(*best);
    return expr(n.child(*best));
  }

  // `x is None` (isnone) and `x is not None` (notnone) of a variable (the front end folds
  // the rest): a test at run time where x holds an optional number, else a constant.
  std::optional<Type> none_test(const Node& n) {
    auto t = expr_keep_optional(n.child(0));
    if (final_ && t && !t->is_optional()) out_.constants[&n] = n.text == "notnone";
    return Type::scalar(Scalar::Bool);
  }

  // What `cond` is when it is a None test of a variable that cannot be None (or not known
  // yet to hold an optional: its branch is typed in a later round if it comes to).
  std::optional<bool> known_none_test(const Node& cond) const {
    if (cond.kind != NodeKind::Call || (cond.text != "isnone" && cond.text != "notnone"))
      return std::nullopt;
    auto it = out_.locals.find(cond.child(0).text);
    if (it != out_.locals.end() && it->second.is_optional()) return std::nullopt;
    return cond.text == "notnone";
  }

  // The types of a call's arguments, a `*tuple`'s items in its place (Star); nothing while
  // one is not known yet.
  std::optional<std::vector<Type>> argument_types(const Node& n) {
    std::vector<Type> args;
    bool known = true;
    for (const auto& c : n.children) {
      const bool star = c->kind == NodeKind::Star;
      auto t = expr(star ? c->child(0) : *c);
      known = known && t.has_value();
      if (!t) continue;
      if (!star) {
        args.push_back(*t);
        continue;
      }
      if (!t->is_tuple())
        type_error(*c, "only a tuple can be unpacked into arguments (*...), got " + describe(*t));
      args.insert(args.end(), t->elements().begin(), t->elements().end());
    }
    if (!known) return std::nullopt;
    return args;
  }

  std::optional<Type> call_function(const Node& n) {
    const ir::Function* fn = module_.find(n.text);
    if (!fn) type_error(n, "call of unknown device function '" + n.text + "'");
    auto given = argument_types(n);
    if (!given) return std::nullopt;
    std::vector<Type> args = std::move(*given);
    if (args.size() != fn->params.size())
      type_error(n, "device function '" + python_name(fn->name) + "' takes " +
                        std::to_string(fn->params.size()) + " arguments, got " +
                        std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].is_none())
        type_error(i < n.size() ? n.child(i) : n,
                   "cannot pass None to device function '" + python_name(fn->name) + "'");
    const TypedFunction& callee = program_.specialize(*fn, args, &n);
    if (&callee == &out_) calls_itself_ = true;
    if (final_) out_.callees[&n] = &callee;
    std::optional<Type> returned = program_.return_type_of(callee);
    if (!returned && final_)
      type_error(n, "cannot type infer runaway recursion: cannot infer what device function '" +
                        python_name(fn->name) + "' returns: every return of it calls itself");
    return returned;
  }

  Type binop_type(const Node& n, const std::string& op, const Type& a, const Type& b) {
    if (!a.is_scalar() || !b.is_scalar())
      type_error(
          n, "unsupported operand types for " + op + ": " + describe(a) + " and " + describe(b));
    Scalar x = a.scalar(), y = b.scalar();
    if (is_npdatetime(x) || is_npdatetime(y)) return datetime_binop_type(n, op, a, b);
    bool ints = is_int_like(a) && is_int_like(b);
    bool any_complex = is_complex(x) || is_complex(y);
    if (op == "+" || op == "-" || op == "*") return Type::scalar(arithmetic_result(x, y));
    if (op == "/") {
      if (ints) return Type::scalar(Scalar::Float64);
      return Type::scalar(arithmetic_result(x, y));
    }
    if (op == "//" || op == "%") {
      if (any_complex) type_error(n, "'" + op + "' is not defined for complex numbers");
      return Type::scalar(arithmetic_result(x, y));
    }
    // float ** int keeps the float's type (numba-cuda: float32 ** int64 -> float32).
    if (op == "**" && is_float(x) && is_int_like(b)) return a;
    if (op == "**") return Type::scalar(arithmetic_result(x, y));
    if (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>") {
      if (!ints)
        type_error(
            n, "'" + op + "' needs integer operands, got " + describe(a) + " and " + describe(b));
      // Shifts take the left operand's signedness, at least 64 bits wide (Numba).
      if (op == "<<" || op == ">>")
        return Type::scalar(make_int(64, x == Scalar::Bool || is_signed(x)));
      if (x == Scalar::Bool && y == Scalar::Bool) return Type::scalar(Scalar::Bool);
      return Type::scalar(arithmetic_result(x, y));
    }
    type_error(n, "unsupported operator '" + op + "'");
  }

  // Numba's NPDatetime/NPTimedelta operators (npdatetime.py): datetime - datetime is a
  // timedelta, datetime +- timedelta a datetime, timedeltas add, subtract and take % among
  // themselves, / and // of two timedeltas give float64 and int64, a timedelta times or divided
  // by a number stays a timedelta. Two units meet in the finer one, when they convert.
  Type datetime_binop_type(const Node& n, const std::string& op, const Type& a, const Type& b) {
    Scalar x = a.scalar(), y = b.scalar();
    auto fail = [&](const std::string& why) -> Type {
      type_error(n, "unsupported operand types for " + op + ": " + describe(a) + " and " +
                        describe(b) + why);
    };
    auto common = [&]() -> int {
      auto unit = common_datetime_unit(datetime_unit(x), datetime_unit(y));
      if (!unit)
        fail(" (their units do not convert: Y and M convert to each other, W to as likewise)");
      return *unit;
    };
    bool number_y = is_integer(y) || y == Scalar::Bool || is_float(y);
    bool number_x = is_integer(x) || x == Scalar::Bool || is_float(x);
    if (is_datetime(x) && is_datetime(y) && op == "-")
      return Type::scalar(make_timedelta(common()));
    if (is_datetime(x) && is_timedelta(y) && (op == "+" || op == "-"))
      return Type::scalar(make_datetime(common()));
    if (is_timedelta(x) && is_datetime(y) && op == "+")
      return Type::scalar(make_datetime(common()));
    if (is_timedelta(x) && is_timedelta(y)) {
      if (op == "+" || op == "-" || op == "%") return Type::scalar(make_timedelta(common()));
      if (op == "/" || op == "//") {
        common();
        return Type::scalar(op == "/" ? Scalar::Float64 : Scalar::Int64);
      }
    }
    if (is_timedelta(x) && number_y && (op == "*" || op == "/" || op == "//")) return a;
    if (number_x && is_timedelta(y) && op == "*") return b;
    return fail(
        " (datetime64 - datetime64, datetime64 +- timedelta64, timedelta64 + - % / // "
        "timedelta64, and timedelta64 * / // a number are defined)");
  }

  Type unary_type(const Node& n, const Type& a) {
    if (!a.is_scalar())
      type_error(n, "unsupported operand type for unary " + n.text + ": " + describe(a));
    Scalar s = a.scalar();
    if (is_datetime(s) || (is_timedelta(s) && n.text == "~"))
      type_error(n, "unsupported operand type for unary " + n.text + ": " + describe(a));
    if (n.text == "~") {
      if (s == Scalar::Bool) return a;
      if (!is_integer(s)) type_error(n, "'~' needs an integer operand, got " + describe(a));
      return Type::scalar(arithmetic_result(s, s));
    }
    if (is_integer(s) || s == Scalar::Bool) return Type::scalar(arithmetic_result(s, s));
    return a;  // floats and complex keep their type
  }

  std::optional<Type> attribute(const Node& n) {
    auto v = expr(n.child(0));
    if (!v) return std::nullopt;
    const std::string& name = n.text;
    if (v->is_record() || (v->is_record_array() && v->record_layout()->find(name)))
      return field_type(n, *v);
    if (v->is_tuple() && !v->fields().empty()) {  // a named tuple's item
      const auto& fields = v->fields();
      auto at = std::find(fields.begin(), fields.end(), name);
      if (at != fields.end()) {
        out_.constants[&n] = at - fields.begin();
        return v->elements()[static_cast<size_t>(at - fields.begin())];
      }
    }
    if (v->is_array()) {
      if (name == "shape" || name == "strides")
        return Type::tuple(std::vector<Type>(v->ndim(), Type::scalar(Scalar::Int64)));
      if (name == "ndim" || name == "size") return Type::scalar(Scalar::Int64);
      if (name == "real" || name == "imag") {
        // A complex array's parts are strided views of its memory (writable, as in NumPy).
        if (is_complex(v->dtype()))
          return Type::array(complex_part(v->dtype()), v->ndim(), Layout::A, v->readonly());
        if (name == "real") return *v;
        type_error(n, "'.imag' of " + describe(*v) +
                          " is not supported in a kernel (only complex arrays have an "
                          "imaginary part to view)");
      }
    } else if (v->is_scalar()) {
      if (name == "real" || name == "imag")
        return is_complex(v->scalar()) ? Type::scalar(complex_part(v->scalar())) : *v;
    }
    std::string has = v->is_array()    ? "; arrays have .shape .strides .ndim .size .real .imag"
                      : v->is_scalar() ? "; numbers have .real .imag"
                                       : "";
    if (v->is_record_array()) has += field_list(*v);
    type_error(n, describe(*v) + " has no attribute '" + name + "' in a kernel" + has);
  }

  // a.reshape(...) and a.view(dtype) (views.cpp), the extents' types given.
  std::optional<Type> array_method(const Node& n, const Type& v) {
    std::vector<Type> args;
    for (size_t i = 1; i < n.size(); ++i) {
      auto t = expr(n.child(i));
      if (!t) return std::nullopt;  // not known yet: the next pass knows
      args.push_back(*t);
    }
    return array_method_type(n, v, args);
  }

  // r.f = "abc" (b"abc"): a str constant into a NumPy 'U' field ([unichr x N]), bytes into an
  // 'S' one ([char x N]); a[i] = "abc" likewise into an element of a 'U' ('S') array. Lowering
  // truncates or zero-pads the text to the field's width.
  void character_store(const Node& target, const Node& value) {
    const bool unichr = value.text == "chars.unichr";
    const std::string what = unichr ? "a str constant" : "a bytes constant";
    const std::string wanted = unichr ? "[unichr x" : "[char x";
    const std::string dtype = unichr ? "'U'" : "'S'";
    if (target.kind == NodeKind::Subscript) {
      auto array = expr(target.child(0));
      if (!array) return;
      if (!array->is_record_array() || !is_character_layout(*array->record_layout()))
        type_error(value, "cannot store " + what + " into an element of " + describe(*array) +
                              "; " + what + " goes into an array of NumPy " + dtype +
                              " dtype or a record's " + dtype + " field");
      auto element = subscript(target, /*store=*/true);
      if (!element) return;
      if (!element->is_record())
        type_error(value, "cannot store " + what + " into a view of several elements (" +
                              describe(*element) + "); store into one element at a time");
      if (final_) out_.expr_types[&target] = *element;
      const std::string& opaque = array->record_layout()->fields[0].opaque;
      if (!opaque.starts_with(wanted))
        type_error(value, "cannot store " + what + " into an element of " + describe(*array) +
                              "; " + what + " goes into a NumPy " + dtype + " array (" + wanted +
                              " N])");
      return;
    }
    if (target.kind != NodeKind::Attr)
      type_error(value, what + " can be stored only into an element of a NumPy " + dtype +
                            " array or a record's " + dtype + " field, not into a variable");
    auto v = expr(target.child(0));
    if (!v) return;
    if (!v->is_record())
      type_error(target, "cannot store " + what + " into attribute '" + target.text + "' of " +
                             describe(*v));
    const RecordField* f = v->record_layout()->find(target.text);
    if (!f) field_type(target, *v);  // the message naming the fields there are
    if (v->readonly())
      type_error(target, "cannot write to field '" + target.text + "' of a read-only record");
    if (!f->opaque.starts_with(wanted))
      type_error(value, "cannot store " + what + " into the field '" + target.text + "' (" +
                            (f->opaque.empty() ? describe(field_type(target, *v)) : f->opaque) +
                            "); " + what + " goes into a NumPy " + (unichr ? "'U'" : "'S'") +
                            " field (" + wanted + " N])");
  }

  // r.f = x: a number into a scalar field, or into every element of a nested array field
  // (x a number, or an array of the field's shape).
  void field_store(const Node& target, const std::optional<Type>& value, const Node& stmt) {
    auto v = expr(target.child(0));
    if (!v) return;
    if (!v->is_record())
      type_error(target, "cannot assign to attribute '" + target.text + "' of " + describe(*v) +
                             (v->is_record_array() ? " (assign to the field of one record: a[i]." +
                                                         target.text + " = ...)"
                                                   : ""));
    Type field = field_type(target, *v);
    if (v->readonly())
      type_error(target, "cannot write to field '" + target.text + "' of a read-only record");
    if (final_) out_.expr_types[&target] = field;
    if (!value) return;
    if (field.is_record()) {  // r.inner = s: the record's bytes are copied
      if (!value->is_record() || value->with_readonly(false) != field)
        type_error(stmt, "cannot store " + describe(*value) + " into the field '" + target.text +
                             "' (" + describe(field) + ")");
      return;
    }
    const Scalar element = field.is_array() ? field.dtype() : field.scalar();
    if (value->is_array()) {
      if (!field.is_array() || value->is_record_array() || value->ndim() != field.ndim())
        type_error(stmt, "cannot store " + describe(*value) + " into the field '" + target.text +
                             "' (" + describe(field) + ")");
      if (is_complex(value->dtype()) && !is_complex(element))
        type_error(stmt, "cannot store " + describe(*value) + " into the field '" + target.text +
                             "' of " + std::string(scalar_name(element)));
      return;
    }
    check_number_store(stmt, *value, element, "the field '" + target.text + "'", [&] {
      return "the field '" + target.text + "' of " + std::string(scalar_name(element));
    });
  }

  // x stored as a number into `into` (an array element, a field), whose numbers are
  // `element` (when known): a number, and not a complex one into a real one. `typed` names
  // the place with its type, for the message.
  template <typename Typed>
  void check_number_store(const Node& stmt, const Type& value, std::optional<Scalar> element,
                          const std::string& into, Typed typed) {
    if (!value.is_scalar()) type_error(stmt, "cannot store " + describe(value) + " into " + into);
    if (element && is_complex(value.scalar()) && !is_complex(*element))
      type_error(stmt, "cannot store " + describe(value) + " into " + typed() +
                           " (take .real or abs() first)");
  }

  std::optional<Type> subscript(const Node& n, bool store) {
    if (ir::has_slice(n.child(1))) return slice_view(n, store);
    auto v = expr(n.child(0));
    auto index = expr(n.child(1));
    if (!v || !index) return std::nullopt;
    if (v->is_tuple()) {
      if (store) type_error(n, "tuples are immutable; cannot assign to an element");
      if (!is_int_like(*index))
        type_error(n, "tuple index must be an integer, got " + describe(*index));
      auto size = static_cast<int64_t>(v->elements().size());
      if (auto k = literal_int(n.child(1))) {
        int64_t i = *k < 0 ? *k + size : *k;
        if (i < 0 || i >= size)
          type_error(n, "tuple index " + std::to_string(*k) + " out of range for " + describe(*v));
        out_.constants[&n] = i;
        return v->elements()[i];
      }
      if (size > 0 && std::all_of(v->elements().begin(), v->elements().end(),
                                  [&](const Type& e) { return e == v->elements()[0]; }))
        return v->elements()[0];
      type_error(n, "a tuple of mixed types can only be indexed by a constant, in " + describe(*v));
    }
    if (v->is_record()) {  // r[k]: the record's k-th field, as in Numba
      if (store) type_error(n, "assign to a record's field by name (r.x = ... or r['x'] = ...)");
      auto k = literal_int(n.child(1));
      auto count = static_cast<int64_t>(v->record_layout()->fields.size());
      if (!k || *k < -count || *k >= count)
        type_error(n.child(1),
                   "a record is indexed by a field name or a constant position "
                   "0.." +
                       std::to_string(count - 1));
      int64_t i = *k < 0 ? *k + count : *k;
      out_.constants[&n] = i;
      return field_type(n, *v, &v->record_layout()->fields[i]);
    }
    return element_type(n, *v, *index, store);
  }

  // a[1:3], a[i, ::2], a[:, j]: a view. Integers fix a dimension; slices keep one. The
  // view is C-contiguous when the array is and, after the first slice, only whole
  // dimensions follow (as Numba types it); else any layout.
  std::optional<Type> slice_view(const Node& n, bool store) {
    auto v = expr(n.child(0));
    if (v && !v->is_array()) type_error(n, describe(*v) + " cannot be sliced; only arrays can");
    std::vector<const Node*> parts = ir::index_parts(n.child(1));
    bool contiguous = v && v->layout() == Layout::C, after_slice = false;
    int kept = 0;
    for (const Node* part : parts) {
      if (!ir::is_slice(*part)) {
        auto t = expr(*part);
        if (t && (!is_int_like(*t) || t->scalar() == Scalar::Bool))
          type_error(*part, "array index must be an integer or a slice, got " + describe(*t));
        contiguous = contiguous && !after_slice;
        continue;
      }
      for (const auto& bound : part->children) {
        auto t = expr(*bound);
        if (t && (!is_int_like(*t) || t->scalar() == Scalar::Bool))
          type_error(*bound, "slice bounds must be integers, got " + describe(*t));
      }
      std::string_view present = ir::slice_parts(*part);
      bool whole = present == "000" || (present == "001" && literal_int(*part->children[0]) == 1);
      contiguous = contiguous && (!after_slice || whole) &&
                   (present[2] == '0' || literal_int(*part->children.back()) == 1);
      after_slice = true;
      ++kept;
    }
    if (!v) return std::nullopt;
    if (static_cast<int>(parts.size()) > v->ndim())
      type_error(n, "too many indices for " + describe(*v) + ": " + std::to_string(parts.size()));
    if (store && v->readonly())
      type_error(n, "cannot write to read-only array (" + describe(*v) + ")");
    int ndim = kept + v->ndim() - static_cast<int>(parts.size());
    return v->with_dims(ndim, contiguous ? Layout::C : Layout::A);
  }

  ProgramTyper& program_;
  const ir::Module& module_;
  TypedFunction& out_;
  const TypedFunction* kernel_ = nullptr;
  bool changed_ = false;
  bool final_ = false;
  int loop_depth_ = 0;
  std::optional<Type> return_type_;
  std::optional<Type> partial_return_;  // the rounds' unified return type (recursion)
  bool calls_itself_ = false;           // a call of this very specialisation was typed

  friend class cudajit::typing::ProgramTyper;
};

}  // namespace

const TypedFunction& ProgramTyper::specialize(const ir::Function& fn, const std::vector<Type>& args,
                                              const ir::Node* call_site, bool is_kernel) {
  std::vector<std::string> key;
  for (const Type& t : args) key.push_back(t.str());
  auto found = done_.find({fn.name, key});
  if (found != done_.end()) return *found->second;
  if (auto typing = in_progress_.find(fn.name); typing != in_progress_.end()) {
    // A function calling itself with the same argument types is one specialisation; with
    // others, each would call another without end.
    if (typing->second.key == key) return *typing->second.function;
    throw CompileError("recursive call of device function '" + python_name(fn.name) +
                           "' with other argument types than its own is not supported in "
                           "kernels (each would need a specialisation of its own)",
                       call_site ? call_site->loc : fn.loc);
  }
  if (fn.params.size() != args.size())
    throw CompileError("'" + python_name(fn.name) + "' takes " + std::to_string(fn.params.size()) +
                           " arguments, got " + std::to_string(args.size()),
                       call_site ? call_site->loc : fn.loc);
  TypedFunction& out = functions_.emplace_back();
  out.function = &fn;
  out.arg_types = args;
  out.symbol = fn.name + "__" + std::to_string(functions_.size());
  FunctionTyper typer(*this, module_, out);
  if (is_kernel) typer.kernel_ = &out;
  in_progress_[fn.name] = InProgress{key, &out, &typer.partial_return_};
  try {
    typer.run();
  } catch (CompileError& e) {
    in_progress_.erase(fn.name);
    // The innermost function's file: a device function may live in another file.
    if (e.file().empty()) e.set_file(fn.file.empty() ? module_.file : fn.file);
    throw;
  }
  in_progress_.erase(fn.name);
  done_[{fn.name, key}] = &out;
  return out;
}

std::optional<Type> ProgramTyper::return_type_of(const TypedFunction& fn) const {
  auto typing = in_progress_.find(fn.function->name);
  if (typing != in_progress_.end() && typing->second.function == &fn)
    return *typing->second.return_type;
  return fn.return_type;
}

TypedProgram ProgramTyper::take(const TypedFunction* entry) {
  TypedProgram program;
  program.functions = std::move(functions_);
  program.entry = entry;
  program.file = module_.file;
  return program;
}

}  // namespace cudajit::typing
