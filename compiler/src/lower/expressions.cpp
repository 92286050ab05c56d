// Expressions: literals, operators with Python's semantics, comparisons,
// short-circuit and/or, conditional expressions, device-function calls.
#include <llvm/IR/Intrinsics.h>

#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

llvm::Value* FunctionLowering::expr_as(const Node& n, const Type& t) {
  return cast(expr(n), type_of(n), t);
}

llvm::Value* FunctionLowering::expr(const Node& n) {
  const AtSource at(*this, n.loc);
  switch (n.kind) {
    case NodeKind::Int:
      return int64(n.int_value);
    case NodeKind::Float:
      return float_const(Scalar::Float64, n.float_value);
    case NodeKind::Bool:
      return b_.getInt1(n.int_value != 0);
    case NodeKind::Complex:
      return make_complex(float_const(Scalar::Float64, n.float_value),
                          float_const(Scalar::Float64, n.imag_value), Scalar::Complex128);
    case NodeKind::Name: {
      auto parameter = parameters_.find(n.text);
      if (parameter != parameters_.end()) return parameter->second;
      const Type& held = f_.locals.at(n.text);
      if (held.is_optional() && !type_of(n).is_optional())  // an optional used as its number
        return extract(b_.CreateLoad(m_.value_type(held), slot(n.text), n.text), {0});
      return load_variable(n.text, m_.value_type(type_of(n)));
    }
    case NodeKind::BinOp: {  // left before right, as Python: a call on the right may write
      llvm::Value* left = expr(n.child(0));
      llvm::Value* right = expr(n.child(1));
      return binop(n, n.text, left, type_of(n.child(0)), right, type_of(n.child(1)), type_of(n));
    }
    case NodeKind::Unary:
      return unary(n);
    case NodeKind::Not:
      return b_.CreateNot(to_bool(expr(n.child(0)), type_of(n.child(0))));
    case NodeKind::And:
    case NodeKind::Or:
      return bool_op(n);
    case NodeKind::Compare:
      return compare_chain(n);
    case NodeKind::IfExp:
      return if_exp(n);
    case NodeKind::Tuple: {
      llvm::Value* t = llvm::UndefValue::get(m_.value_type(type_of(n)));
      for (unsigned i = 0; i < n.size(); ++i) t = b_.CreateInsertValue(t, expr(n.child(i)), {i});
      return t;
    }
    case NodeKind::Subscript:
      return subscript(n);
    case NodeKind::Attr:
      return attribute(n);
    case NodeKind::Method: {  // conjugate() and bit_count(); reshape and view of arrays
      if (type_of(n.child(0)).is_array()) return array_method(n);
      llvm::Value* v = expr(n.child(0));
      const Type& t = type_of(n.child(0));
      if (n.text == "bit_count") {
        llvm::Value* x = cast(v, t, Type::scalar(make_int(64, is_signed(t.scalar()))));
        if (is_signed(t.scalar()))  // |x|, two's complement: INT64_MIN stays its 1 bit
          x = b_.CreateSelect(b_.CreateICmpSLT(x, int64(0)), b_.CreateNeg(x), x);
        return intrinsic(llvm::Intrinsic::ctpop, {x->getType()}, {x});
      }
      if (!is_complex(t.scalar())) return v;
      return make_complex(re(v), b_.CreateFNeg(im(v)), t.scalar());
    }
    case NodeKind::Call:
      return call_builtin(n);
    case NodeKind::CallFn:
      return call_function(n);
    default:
      throw CompileError("internal: unexpected expression", n.loc);
  }
}

std::vector<Value> FunctionLowering::argument_values(const Node& n) {
  std::vector<Value> args;
  for (const auto& c : n.children) {
    if (c->kind != NodeKind::Star) {
      args.push_back({expr(*c), type_of(*c)});
      continue;
    }
    const Type& tuple = type_of(c->child(0));
    llvm::Value* items = expr(c->child(0));
    for (unsigned k = 0; k < tuple.elements().size(); ++k)
      args.push_back({extract(items, {k}), tuple.elements()[k]});
  }
  return args;
}

llvm::Value* FunctionLowering::call_function(const Node& n) {
  const typing::TypedFunction* callee = f_.callees.at(&n);
  std::vector<llvm::Value*> args;
  if (thread_ctx_) args.push_back(thread_ctx_);
  if (grid_workspace_) args.push_back(grid_workspace_);
  for (const Value& a : argument_values(n)) args.push_back(a.v);
  llvm::Value* result = b_.CreateCall(m_.functions.at(callee), args);
  return_if_raised();
  if (callee->return_type.is_optional() && !type_of(n).is_optional())
    return extract(result, {0});  // an optional used as its number
  return result;
}

llvm::Value* FunctionLowering::binop(const Node&, const std::string& op, llvm::Value* a,
                                     const Type& ta, llvm::Value* b, const Type& tb,
                                     const Type& result) {
  Scalar r = result.scalar();
  if (is_npdatetime(ta.scalar()) || is_npdatetime(tb.scalar()))
    return datetime_binop(op, a, ta, b, tb, result);
  // Bitwise ops on two bools stay bool.
  if (r == Scalar::Bool) {
    if (op == "&") return b_.CreateAnd(a, b);
    if (op == "|") return b_.CreateOr(a, b);
    return b_.CreateXor(a, b);
  }
  if (op == "**" && is_float(r) && is_integer(tb.scalar()) && !is_complex(ta.scalar())) {
    // float ** int: pow with the exponent converted, as Python does.
    return call_math("pow", r, {cast(a, ta, result), cast(b, tb, result)});
  }
  llvm::Value* x = cast(a, ta, result);
  llvm::Value* y = cast(b, tb, result);
  if (is_integer(r)) return int_binop(op, x, y, r);
  if (is_float(r)) return float_binop(op, x, y, r);
  return complex_binop(op, x, y, r);
}

llvm::Value* FunctionLowering::int_binop(const std::string& op, llvm::Value* a, llvm::Value* b,
                                         Scalar s) {
  bool sign = is_signed(s);
  llvm::Type* t = a->getType();
  auto c = [&](int64_t v) { return llvm::ConstantInt::get(t, v, true); };
  if (op == "+") return b_.CreateAdd(a, b);
  if (op == "-") return b_.CreateSub(a, b);
  if (op == "*") return b_.CreateMul(a, b);
  if (op == "&") return b_.CreateAnd(a, b);
  if (op == "|") return b_.CreateOr(a, b);
  if (op == "^") return b_.CreateXor(a, b);
  if (op == "<<" || op == ">>") {
    // Shifting by the width or more gives 0 (or -1), not poison.
    unsigned width = t->getIntegerBitWidth();
    llvm::Value* too_far = b_.CreateICmpUGE(b, c(width));
    llvm::Value* amount = b_.CreateSelect(too_far, c(width - 1), b);
    if (op == "<<") return b_.CreateSelect(too_far, c(0), b_.CreateShl(a, amount));
    llvm::Value* shifted = sign ? b_.CreateAShr(a, amount) : b_.CreateLShr(a, amount);
    return sign ? shifted : b_.CreateSelect(too_far, c(0), shifted);
  }
  if (op == "**") return int_power(a, b, s);
  // // and %: Python floors towards negative infinity. Division by zero gives
  // 0 instead of trapping, and INT_MIN // -1 wraps instead of trapping.
  llvm::Value* is_zero = b_.CreateICmpEQ(b, c(0));
  llvm::Value* is_minus_one = sign ? b_.CreateICmpEQ(b, c(-1)) : b_.getFalse();
  llvm::Value* safe = b_.CreateSelect(b_.CreateOr(is_zero, is_minus_one), c(1), b);
  llvm::Value* q = sign ? b_.CreateSDiv(a, safe) : b_.CreateUDiv(a, safe);
  llvm::Value* r = sign ? b_.CreateSRem(a, safe) : b_.CreateURem(a, safe);
  if (sign) {
    q = b_.CreateSelect(is_minus_one, b_.CreateNeg(a), q);
    r = b_.CreateSelect(is_minus_one, c(0), r);
    llvm::Value* adjust =
        b_.CreateAnd(b_.CreateICmpNE(r, c(0)), b_.CreateICmpSLT(b_.CreateXor(r, b), c(0)));
    q = b_.CreateSelect(adjust, b_.CreateSub(q, c(1)), q);
    r = b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
  }
  if (op == "//") return b_.CreateSelect(is_zero, c(0), q);
  if (op == "%") return b_.CreateSelect(is_zero, c(0), r);
  throw LlvmError("internal: integer operator " + op);
}

// a ** b for integers by squaring; a negative exponent gives the truncated
// real result (0, or +-1 for a base of +-1).
llvm::Value* FunctionLowering::int_power(llvm::Value* a, llvm::Value* b, Scalar s) {
  llvm::Type* t = a->getType();
  auto c = [&](int64_t v) { return llvm::ConstantInt::get(t, v, true); };
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(m_.context, "ipow.loop", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "ipow.done", fn_);
  llvm::Value* negative = is_signed(s) ? b_.CreateICmpSLT(b, c(0)) : b_.getFalse();
  llvm::Value* e0 = b_.CreateSelect(negative, c(0), b);
  b_.CreateCondBr(b_.CreateICmpNE(e0, c(0)), loop, done);
  b_.SetInsertPoint(loop);
  llvm::PHINode* result = b_.CreatePHI(t, 2);
  llvm::PHINode* base = b_.CreatePHI(t, 2);
  llvm::PHINode* e = b_.CreatePHI(t, 2);
  result->addIncoming(c(1), pre);
  base->addIncoming(a, pre);
  e->addIncoming(e0, pre);
  llvm::Value* odd = b_.CreateICmpNE(b_.CreateAnd(e, c(1)), c(0));
  llvm::Value* next_result = b_.CreateSelect(odd, b_.CreateMul(result, base), result);
  llvm::Value* next_e = b_.CreateLShr(e, c(1));
  llvm::Value* next_base = b_.CreateMul(base, base);
  result->addIncoming(next_result, loop);
  base->addIncoming(next_base, loop);
  e->addIncoming(next_e, loop);
  b_.CreateCondBr(b_.CreateICmpNE(next_e, c(0)), loop, done);
  b_.SetInsertPoint(done);
  llvm::PHINode* power = b_.CreatePHI(t, 2);
  power->addIncoming(c(1), pre);
  power->addIncoming(next_result, loop);
  if (!is_signed(s)) return power;
  llvm::Value* odd_exp = b_.CreateICmpNE(b_.CreateAnd(b, c(1)), c(0));
  llvm::Value* unit = b_.CreateSelect(
      b_.CreateICmpEQ(a, c(1)), c(1),
      b_.CreateSelect(b_.CreateICmpEQ(a, c(-1)), b_.CreateSelect(odd_exp, c(-1), c(1)), c(0)));
  return b_.CreateSelect(negative, unit, power);
}

llvm::Value* FunctionLowering::float_binop(const std::string& op, llvm::Value* a, llvm::Value* b,
                                           Scalar s) {
  if (op == "+") return b_.CreateFAdd(a, b);
  if (op == "-") return b_.CreateFSub(a, b);
  if (op == "*") return b_.CreateFMul(a, b);
  if (op == "/") return b_.CreateFDiv(a, b);
  if (op == "**") return call_math("pow", s, {a, b});
  if (bit_width(s) == 16) {  // % and // in float32: exact for float16 and bfloat16 operands
    llvm::Value* wide = float_binop(op, b_.CreateFPExt(a, b_.getFloatTy()),
                                    b_.CreateFPExt(b, b_.getFloatTy()), Scalar::Float32);
    return b_.CreateFPTrunc(wide, a->getType());
  }
  // CPython's float_divmod, signed zeros included. A zero divisor gives
  // a / b (inf or nan) where Python would raise.
  llvm::Type* t = a->getType();
  llvm::Value* zero = float_const(s, 0.0);
  llvm::Value* one = float_const(s, 1.0);
  // libm's/libdevice's fmod: exact (NVPTX expands LLVM's frem as a - trunc(a / b) * b).
  llvm::Value* raw_mod = call_math("fmod", s, {a, b});
  llvm::Value* mod = raw_mod;
  llvm::Value* div = b_.CreateFDiv(b_.CreateFSub(a, mod), b);
  llvm::Value* nonzero_mod = b_.CreateFCmpUNE(mod, zero);
  llvm::Value* fix = b_.CreateAnd(
      nonzero_mod, b_.CreateXor(b_.CreateFCmpOLT(b, zero), b_.CreateFCmpOLT(mod, zero)));
  mod = b_.CreateSelect(fix, b_.CreateFAdd(mod, b), mod);
  div = b_.CreateSelect(fix, b_.CreateFSub(div, one), div);
  if (op == "%") {
    llvm::Value* signed_zero = intrinsic(llvm::Intrinsic::copysign, {t}, {zero, b});
    llvm::Value* result = b_.CreateSelect(nonzero_mod, mod, signed_zero);
    return b_.CreateSelect(b_.CreateFCmpOEQ(b, zero), raw_mod, result);
  }
  if (op == "//") {
    llvm::Value* floor_div = intrinsic(llvm::Intrinsic::floor, {t}, {div});
    llvm::Value* round_up = b_.CreateFCmpOGT(b_.CreateFSub(div, floor_div), float_const(s, 0.5));
    floor_div = b_.CreateSelect(round_up, b_.CreateFAdd(floor_div, one), floor_div);
    llvm::Value* quotient = b_.CreateFDiv(a, b);
    llvm::Value* zero_div = intrinsic(llvm::Intrinsic::copysign, {t}, {zero, quotient});
    llvm::Value* result = b_.CreateSelect(b_.CreateFCmpUNE(div, zero), floor_div, zero_div);
    return b_.CreateSelect(b_.CreateFCmpOEQ(b, zero), quotient, result);
  }
  throw LlvmError("internal: float operator " + op);
}

llvm::Value* FunctionLowering::complex_binop(const std::string& op, llvm::Value* x, llvm::Value* y,
                                             Scalar s) {
  Scalar p = complex_part(s);
  llvm::Value *a = re(x), *b = im(x), *c = re(y), *d = im(y);
  if (op == "+") return make_complex(b_.CreateFAdd(a, c), b_.CreateFAdd(b, d), s);
  if (op == "-") return make_complex(b_.CreateFSub(a, c), b_.CreateFSub(b, d), s);
  if (op == "*")
    return make_complex(b_.CreateFSub(b_.CreateFMul(a, c), b_.CreateFMul(b, d)),
                        b_.CreateFAdd(b_.CreateFMul(a, d), b_.CreateFMul(b, c)), s);
  if (op == "/") {
    // Smith's algorithm: scale by the larger part of the divisor to avoid overflow.
    llvm::Type* ft = a->getType();
    llvm::Value* c_big = b_.CreateFCmpOGE(intrinsic(llvm::Intrinsic::fabs, {ft}, {c}),
                                          intrinsic(llvm::Intrinsic::fabs, {ft}, {d}));
    llvm::Value* r1 = b_.CreateFDiv(d, c);  // |c| >= |d|
    llvm::Value* den1 = b_.CreateFAdd(c, b_.CreateFMul(d, r1));
    llvm::Value* re1 = b_.CreateFDiv(b_.CreateFAdd(a, b_.CreateFMul(b, r1)), den1);
    llvm::Value* im1 = b_.CreateFDiv(b_.CreateFSub(b, b_.CreateFMul(a, r1)), den1);
    llvm::Value* r2 = b_.CreateFDiv(c, d);  // |d| > |c|
    llvm::Value* den2 = b_.CreateFAdd(b_.CreateFMul(c, r2), d);
    llvm::Value* re2 = b_.CreateFDiv(b_.CreateFAdd(b_.CreateFMul(a, r2), b), den2);
    llvm::Value* im2 = b_.CreateFDiv(b_.CreateFSub(b_.CreateFMul(b, r2), a), den2);
    return make_complex(b_.CreateSelect(c_big, re1, re2), b_.CreateSelect(c_big, im1, im2), s);
  }
  if (op == "**") {
    // exp(y * log(x)); 0 ** y is 0 (1 for y == 0), as Python for real y.
    llvm::Value* log_abs = call_math("log", p, {call_math("hypot", p, {a, b})});
    llvm::Value* arg = call_math("atan2", p, {b, a});
    llvm::Value* lre = b_.CreateFSub(b_.CreateFMul(c, log_abs), b_.CreateFMul(d, arg));
    llvm::Value* lim = b_.CreateFAdd(b_.CreateFMul(c, arg), b_.CreateFMul(d, log_abs));
    llvm::Value* mag = call_math("exp", p, {lre});
    llvm::Value* result = make_complex(b_.CreateFMul(mag, call_math("cos", p, {lim})),
                                       b_.CreateFMul(mag, call_math("sin", p, {lim})), s);
    llvm::Value* zero = float_const(p, 0.0);
    llvm::Value* x_zero = b_.CreateAnd(b_.CreateFCmpOEQ(a, zero), b_.CreateFCmpOEQ(b, zero));
    llvm::Value* y_zero = b_.CreateAnd(b_.CreateFCmpOEQ(c, zero), b_.CreateFCmpOEQ(d, zero));
    llvm::Value* zero_case =
        make_complex(b_.CreateSelect(y_zero, float_const(p, 1.0), zero), zero, s);
    return b_.CreateSelect(x_zero, zero_case, result);
  }
  throw LlvmError("internal: complex operator " + op);
}

llvm::Value* FunctionLowering::compare(const std::string& op, llvm::Value* a, const Type& ta,
                                       llvm::Value* b, const Type& tb) {
  if (op == "is" || op == "isnot") {  // values of the same type and value (True is True)
    if (ta != tb) return b_.getInt1(op == "isnot");
    return compare(op == "is" ? "==" : "!=", a, ta, b, tb);
  }
  if (op == "in" || op == "notin") {  // == with any item of the tuple (none: false)
    llvm::Value* found = b_.getFalse();
    for (size_t k = 0; k < tb.elements().size(); ++k)
      found = b_.CreateOr(
          found, compare("==", a, ta, extract(b, {static_cast<unsigned>(k)}), tb.elements()[k]));
    return op == "in" ? found : b_.CreateNot(found);
  }
  if (is_npdatetime(ta.scalar())) {
    // In the finer unit; NaT is unequal to everything (itself too) and unordered, as in NumPy.
    Type t = Type::scalar(typing::promote(ta.scalar(), tb.scalar()));
    llvm::Value* x = cast(a, ta, t);
    llvm::Value* y = cast(b, tb, t);
    llvm::Value* nat = b_.CreateOr(b_.CreateICmpEQ(x, b_.getInt64(INT64_MIN)),
                                   b_.CreateICmpEQ(y, b_.getInt64(INT64_MIN)));
    llvm::Value* r = compare(op, x, Type::scalar(Scalar::Int64), y, Type::scalar(Scalar::Int64));
    return b_.CreateSelect(nat, b_.getInt1(op == "!="), r);
  }
  Type t = Type::scalar(typing::arithmetic_result(ta.scalar(), tb.scalar()));
  if (ta.scalar() == Scalar::Bool && tb.scalar() == Scalar::Bool) t = Type::scalar(Scalar::Int64);
  llvm::Value* x = cast(a, ta, t);
  llvm::Value* y = cast(b, tb, t);
  Scalar s = t.scalar();
  if (is_complex(s)) {
    llvm::Value* eq = b_.CreateAnd(b_.CreateFCmpOEQ(re(x), re(y)), b_.CreateFCmpOEQ(im(x), im(y)));
    return op == "==" ? eq : b_.CreateNot(eq);
  }
  if (is_float(s)) {
    if (op == "<") return b_.CreateFCmpOLT(x, y);
    if (op == "<=") return b_.CreateFCmpOLE(x, y);
    if (op == ">") return b_.CreateFCmpOGT(x, y);
    if (op == ">=") return b_.CreateFCmpOGE(x, y);
    if (op == "==") return b_.CreateFCmpOEQ(x, y);
    return b_.CreateFCmpUNE(x, y);
  }
  bool sign = is_signed(s);
  if (op == "<") return sign ? b_.CreateICmpSLT(x, y) : b_.CreateICmpULT(x, y);
  if (op == "<=") return sign ? b_.CreateICmpSLE(x, y) : b_.CreateICmpULE(x, y);
  if (op == ">") return sign ? b_.CreateICmpSGT(x, y) : b_.CreateICmpUGT(x, y);
  if (op == ">=") return sign ? b_.CreateICmpSGE(x, y) : b_.CreateICmpUGE(x, y);
  if (op == "==") return b_.CreateICmpEQ(x, y);
  return b_.CreateICmpNE(x, y);
}

// Whether `n` can be evaluated where Python would not (the right of `and`,
// the rest of a chained comparison): cheap, and neither faults nor has
// effects. Then `0 < i < n and 0 < j < m` is straight-line code, with nothing
// for LLVM to turn back into it.
bool FunctionLowering::speculatable(const Node& n) const {
  auto all_children = [&] {
    for (const auto& c : n.children)
      if (!speculatable(*c)) return false;
    return true;
  };
  switch (n.kind) {
    case NodeKind::Int:
    case NodeKind::Float:
    case NodeKind::Bool:
    case NodeKind::Complex:
    case NodeKind::Name:
      return true;
    case NodeKind::Attr:  // shape, size, .real, ...: fields of a value (not a record's: a load)
      return !type_of(n.child(0)).is_record() && all_children();
    case NodeKind::Unary:
    case NodeKind::Not:
    case NodeKind::Compare:
    case NodeKind::And:
    case NodeKind::Or:
      return all_children();
    case NodeKind::BinOp:  // not / // % (a zero divisor), ** (a call), shifts
      return (n.text == "+" || n.text == "-" || n.text == "*" || n.text == "&" || n.text == "|" ||
              n.text == "^") &&
             all_children();
    case NodeKind::Subscript:  // an item of a tuple; an array element may fault
      return type_of(n.child(0)).is_tuple() && f_.constants.contains(&n) &&
             speculatable(n.child(0));
    case NodeKind::Call:  // special registers, cuda.grid(n), len(a)
      return (reads_index_registers(n.text) || n.text == "len") && all_children();
    default:
      return false;
  }
}

// Every operand of `n` but the first (which is evaluated anyway) is speculatable.
bool FunctionLowering::rest_speculatable(const Node& n) const {
  for (size_t i = 1; i < n.size(); ++i)
    if (!speculatable(n.child(i))) return false;
  return true;
}

// a < b < c: each operand evaluated at most once, stopping at the first false
// (unless the rest is speculatable: then every link, and the links' `and`).
llvm::Value* FunctionLowering::compare_chain(const Node& n) {
  const bool straight = rest_speculatable(n);
  auto* done = straight ? nullptr : llvm::BasicBlock::Create(m_.context, "cmp.end", fn_);
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  llvm::Value* all = nullptr;
  llvm::Value* left = expr(n.child(0));
  for (size_t i = 0; i < n.ops.size(); ++i) {
    llvm::Value* right = expr(n.child(i + 1));
    llvm::Value* result =
        compare(n.ops[i], left, type_of(n.child(i)), right, type_of(n.child(i + 1)));
    left = right;
    if (straight) {
      all = all ? b_.CreateAnd(all, result) : result;
      continue;
    }
    if (i + 1 == n.ops.size()) {
      incoming.push_back({result, b_.GetInsertBlock()});
      b_.CreateBr(done);
      break;
    }
    auto* next = llvm::BasicBlock::Create(m_.context, "cmp.next", fn_);
    incoming.push_back({b_.getFalse(), b_.GetInsertBlock()});
    b_.CreateCondBr(result, next, done);
    b_.SetInsertPoint(next);
  }
  if (straight) return all;
  b_.SetInsertPoint(done);
  llvm::PHINode* phi = b_.CreatePHI(b_.getInt1Ty(), incoming.size());
  for (auto& [v, bb] : incoming) phi->addIncoming(v, bb);
  return phi;
}

// `a and b` is a if a is falsy, else b; `a or b` the reverse (Python values).
// Operands after the first are evaluated only when needed, unless they are
// speculatable: then all of them, and selects pick the value. (No value here
// is ever poison, so and/or of i1s are as safe as selects.)
llvm::Value* FunctionLowering::bool_op(const Node& n) {
  const Type& t = type_of(n);
  bool is_and = n.kind == NodeKind::And;
  if (rest_speculatable(n)) {
    std::vector<std::pair<llvm::Value*, llvm::Value*>> operands;  // (value as t, truth)
    for (const auto& c : n.children) {
      llvm::Value* v = expr(*c);
      operands.push_back({cast(v, type_of(*c), t), to_bool(v, type_of(*c))});
    }
    llvm::Value* result = operands.back().first;
    for (size_t i = operands.size() - 1; i-- > 0;) {
      auto [value, truth] = operands[i];
      if (t.is_scalar(Scalar::Bool)) {  // and/or of i1s: cheaper for LLVM than selects
        result = is_and ? b_.CreateAnd(value, result) : b_.CreateOr(value, result);
      } else {
        result =
            is_and ? b_.CreateSelect(truth, result, value) : b_.CreateSelect(truth, value, result);
      }
    }
    return result;
  }
  auto* done = llvm::BasicBlock::Create(m_.context, is_and ? "and.end" : "or.end", fn_);
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  for (size_t i = 0; i < n.size(); ++i) {
    llvm::Value* v = expr(n.child(i));
    llvm::Value* as_result = cast(v, type_of(n.child(i)), t);
    if (i + 1 == n.size()) {
      incoming.push_back({as_result, b_.GetInsertBlock()});
      b_.CreateBr(done);
      break;
    }
    llvm::Value* truth = to_bool(v, type_of(n.child(i)));
    auto* next = llvm::BasicBlock::Create(m_.context, "bool.next", fn_);
    incoming.push_back({as_result, b_.GetInsertBlock()});
    if (is_and)
      b_.CreateCondBr(truth, next, done);
    else
      b_.CreateCondBr(truth, done, next);
    b_.SetInsertPoint(next);
  }
  b_.SetInsertPoint(done);
  llvm::PHINode* phi = b_.CreatePHI(m_.value_type(t), incoming.size());
  for (auto& [v, bb] : incoming) phi->addIncoming(v, bb);
  return phi;
}

llvm::Value* FunctionLowering::if_exp(const Node& n) {
  const Type& t = type_of(n);
  llvm::Value* cond = to_bool(expr(n.child(0)), type_of(n.child(0)));
  auto* then_bb = llvm::BasicBlock::Create(m_.context, "ifexp.then", fn_);
  auto* else_bb = llvm::BasicBlock::Create(m_.context, "ifexp.else", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "ifexp.end", fn_);
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  llvm::Value* a = expr_as(n.child(1), t);
  llvm::BasicBlock* a_end = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(else_bb);
  llvm::Value* b = expr_as(n.child(2), t);
  llvm::BasicBlock* b_end = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  llvm::PHINode* phi = b_.CreatePHI(m_.value_type(t), 2);
  phi->addIncoming(a, a_end);
  phi->addIncoming(b, b_end);
  return phi;
}

llvm::Value* FunctionLowering::unary(const Node& n) {
  const Type& t = type_of(n);
  llvm::Value* v = expr_as(n.child(0), t);
  Scalar s = t.scalar();
  if (n.text == "+") return v;
  if (n.text == "~") return b_.CreateNot(v);  // bitwise on integers, logical on bool
  if (is_integer(s) || is_timedelta(s)) return b_.CreateNeg(v);  // -NaT wraps to NaT
  if (is_float(s)) return b_.CreateFNeg(v);
  return make_complex(b_.CreateFNeg(re(v)), b_.CreateFNeg(im(v)), s);
}

// datetime64/timedelta64 arithmetic (the typing chose `result`), as NumPy computes it: the
// operands in their common unit, NaT in gives NaT out (NaN for td / td, 0 for td // td);
// td / n, td // n and td * float truncate toward zero, td // td and td % td floor, % by a zero
// timedelta gives NaT.
llvm::Value* FunctionLowering::datetime_binop(const std::string& op, llvm::Value* a, const Type& ta,
                                              llvm::Value* b, const Type& tb, const Type& result) {
  Scalar x = ta.scalar(), y = tb.scalar(), r = result.scalar();
  llvm::Value* nat_value = b_.getInt64(INT64_MIN);
  auto is_nat = [&](llvm::Value* v) { return b_.CreateICmpEQ(v, nat_value); };
  const Type i64 = Type::scalar(Scalar::Int64), f64 = Type::scalar(Scalar::Float64);
  if (is_npdatetime(x) && is_npdatetime(y)) {
    int unit = *common_datetime_unit(datetime_unit(x), datetime_unit(y));
    llvm::Value* u =
        cast(a, ta, Type::scalar(is_datetime(x) ? make_datetime(unit) : make_timedelta(unit)));
    llvm::Value* v =
        cast(b, tb, Type::scalar(is_datetime(y) ? make_datetime(unit) : make_timedelta(unit)));
    llvm::Value* nat = b_.CreateOr(is_nat(u), is_nat(v));
    if (op == "+") return b_.CreateSelect(nat, nat_value, b_.CreateAdd(u, v));
    if (op == "-") return b_.CreateSelect(nat, nat_value, b_.CreateSub(u, v));
    if (op == "%") {
      nat = b_.CreateOr(nat, b_.CreateICmpEQ(v, b_.getInt64(0)));
      return b_.CreateSelect(nat, nat_value, int_binop("%", u, v, Scalar::Int64));
    }
    if (op == "//")
      return b_.CreateSelect(nat, b_.getInt64(0), int_binop("//", u, v, Scalar::Int64));
    // "/": float64
    llvm::Value* q = b_.CreateFDiv(cast(u, i64, f64), cast(v, i64, f64));
    return b_.CreateSelect(nat, llvm::ConstantFP::getNaN(b_.getDoubleTy()), q);
  }
  // A timedelta and a number (td * n, n * td, td / n, td // n).
  const bool td_first = is_timedelta(x);
  llvm::Value* td = td_first ? a : b;
  llvm::Value* n = td_first ? b : a;
  const Type& tn = td_first ? tb : ta;
  llvm::Value* nat = is_nat(td);
  llvm::Value* out;
  if (is_float(tn.scalar())) {
    llvm::Value* f = cast(n, tn, f64);
    llvm::Value* d = cast(td, i64, f64);
    llvm::Value* q = op == "*" ? b_.CreateFMul(d, f) : b_.CreateFDiv(d, f);
    // A NaN or infinite result is NaT, as NumPy's.
    llvm::Value* finite = b_.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, {q->getType()}, {q}),
                                           llvm::ConstantFP::get(b_.getDoubleTy(), 0x1p63));
    nat = b_.CreateOr(nat, b_.CreateNot(finite));
    out = b_.CreateFPToSI(b_.CreateSelect(finite, q, llvm::ConstantFP::get(b_.getDoubleTy(), 0)),
                          b_.getInt64Ty());
  } else {
    llvm::Value* k = cast(n, tn, i64);
    if (op == "*") {
      out = b_.CreateMul(td, k);
    } else {  // / and // by an integer truncate; by zero: NaT
      llvm::Value* zero = b_.CreateICmpEQ(k, b_.getInt64(0));
      nat = b_.CreateOr(nat, zero);
      llvm::Value* safe = b_.CreateSelect(b_.CreateOr(zero, b_.CreateICmpEQ(k, b_.getInt64(-1))),
                                          b_.getInt64(1), k);
      out = b_.CreateSDiv(td, safe);
      out = b_.CreateSelect(b_.CreateICmpEQ(k, b_.getInt64(-1)), b_.CreateNeg(td), out);
    }
  }
  (void)r;
  return b_.CreateSelect(nat, nat_value, out);
}

}  // namespace cudajit::lower
