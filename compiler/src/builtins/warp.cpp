// Warp-level functions: shuffles (shfl_sync, shfl_up/down/xor_sync), votes
// (all/any/eq_sync, ballot_sync), match_any/all_sync, activemask and
// lanemask_lt. Values travel as 32- or 64-bit patterns: floats by their bits
// (so match compares bit patterns), narrower integers widened.
#include "../lower/lowering.hpp"
#include "cudajit/compiler/target.hpp"
#include "rules.hpp"

namespace cudajit::builtins {

namespace {

// (mask, value/predicate[, lane]) as Numba spells them: the mask an integer (or bool).
void expect_integer(const Node& call, const Type& t, const char* role) {
  if (!t.is_scalar() || !(is_integer(t.scalar()) || t.scalar() == Scalar::Bool))
    type_error(call, call.text + "() needs an integer " + role + ", got " + t.str());
}

// A value shuffles and matches carry by its bits: an integer or a float.
void expect_transported(const Node& call, const Type& t) {
  if (!t.is_scalar() || is_complex(t.scalar()) || t.scalar() == Scalar::Bool)
    type_error(call, call.text + "() exchanges integers and floats, got " + t.str());
}

Type type_lane_mask(const Node&, const std::vector<Type>&, typing::TypedFunction&) {
  return Type::scalar(Scalar::UInt32);  // activemask, lanemask_lt
}

Type type_shuffle(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  expect_integer(call, args[0], "mask");
  expect_transported(call, args[1]);
  const std::string_view name = call.text;
  expect_integer(call, args[2],
                 name == "cuda.shfl_sync"       ? "source lane"
                 : name == "cuda.shfl_xor_sync" ? "lane mask"
                                                : "delta");
  return args[1];
}

// Votes check as numba-cuda does, in its words: the mask an integer (not a bool), the
// predicate an integer or bool (not a float, whose truth would be a comparison with 0.0).
Type type_vote(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  if (!args[0].is_scalar() || !is_integer(args[0].scalar()))
    type_error(call, call.text + "(): Mask type must be an integer, got " + args[0].str());
  if (!args[1].is_scalar() || !(is_integer(args[1].scalar()) || args[1].scalar() == Scalar::Bool))
    type_error(call,
               call.text + "(): Predicate must be an integer or boolean, got " + args[1].str());
  return Type::scalar(call.text == "cuda.ballot_sync" ? Scalar::Int32 : Scalar::Bool);
}

// match_any_sync: the matching lanes (int32); match_all_sync: (lanes, all matched).
Type type_match(const Node& call, const std::vector<Type>& args, typing::TypedFunction&) {
  expect_integer(call, args[0], "mask");
  expect_transported(call, args[1]);
  if (call.text == "cuda.match_any_sync") return Type::scalar(Scalar::Int32);
  return Type::tuple({Type::scalar(Scalar::Int32), Type::scalar(Scalar::Bool)});
}

}  // namespace

void register_warp(Registry& r) {
  auto lower_warp = [](lower::FunctionLowering& f, const Node& n) {
    return f.call_warp_builtin(n, suffix(n, "cuda."));
  };
  r.add({"cuda.activemask", takes(0), type_lane_mask, lower_warp, "cuda.activemask"});
  r.add({"cuda.lanemask_lt", takes(0), type_lane_mask, lower_warp, "cuda.lanemask_lt"});
  for (std::string_view name :
       {"cuda.shfl_sync", "cuda.shfl_up_sync", "cuda.shfl_down_sync", "cuda.shfl_xor_sync"})
    r.add({name, takes(3), type_shuffle, lower_warp, name});
  for (std::string_view name :
       {"cuda.all_sync", "cuda.any_sync", "cuda.eq_sync", "cuda.ballot_sync"})
    r.add({name, takes(2), type_vote, lower_warp, name});
  for (std::string_view name : {"cuda.match_any_sync", "cuda.match_all_sync"})
    r.add({name, takes(2), type_match, lower_warp, name});
}

}  // namespace cudajit::builtins

namespace cudajit::lower {

using ir::Node;

namespace {

int transport_bits(Scalar s) { return bit_width(s) <= 32 ? 32 : 64; }

}  // namespace

llvm::Value* FunctionLowering::call_warp_builtin(const Node& n, std::string_view name) {
  const Type i32 = Type::scalar(Scalar::Int32);
  if (name == "lanemask_lt") {
    llvm::Value* lane = m_.hooks.special_register(b_, "laneid", thread_ctx_);
    return b_.CreateSub(b_.CreateShl(b_.getInt32(1), lane), b_.getInt32(1));
  }
  m_.synchronises = true;  // the cpu device exchanges values between its fibers
  if (name == "activemask") {
    // The call site tells the cpu device which lanes are together at this call.
    llvm::Value* site = b_.getInt32(m_.warp_sites++);
    return m_.hooks.warp(m_, b_, target::kActiveMask, b_.getInt32(0xffffffffu), nullptr, site,
                         thread_ctx_);
  }
  llvm::Value* mask = expr_as(n.child(0), Type::scalar(Scalar::UInt32));
  const Node& operand = n.child(1);
  const Type& t = type_of(operand);

  if (name.starts_with("all") || name.starts_with("any") || name.starts_with("eq") ||
      name.starts_with("ballot")) {
    llvm::Value* predicate = b_.CreateZExt(to_bool(expr(operand), t), b_.getInt32Ty());
    int op = name == "all_sync"   ? target::kVoteAll
             : name == "any_sync" ? target::kVoteAny
             : name == "eq_sync"  ? target::kVoteUni
                                  : target::kBallot;
    llvm::Value* r = m_.hooks.warp(m_, b_, op, mask, predicate, nullptr, thread_ctx_);
    return op == target::kBallot ? r : b_.CreateICmpNE(r, b_.getInt32(0));
  }

  // Shuffles and matches carry the value's bits.
  const Scalar s = t.scalar();
  llvm::Type* bits_type = b_.getIntNTy(transport_bits(s));
  llvm::Value* v = expr(operand);
  llvm::Value* bits =
      is_float(s) ? b_.CreateBitCast(v, b_.getIntNTy(bit_width(s))) : v;  // integers: widened below
  bits =
      is_signed(s) ? b_.CreateSExtOrTrunc(bits, bits_type) : b_.CreateZExtOrTrunc(bits, bits_type);

  if (name.starts_with("match")) {
    if (name == "match_any_sync")
      return m_.hooks.warp(m_, b_, target::kMatchAny, mask, bits, nullptr, thread_ctx_);
    llvm::Value* r = m_.hooks.warp(m_, b_, target::kMatchAll, mask, bits, nullptr, thread_ctx_);
    llvm::Value* lanes = b_.CreateTrunc(r, b_.getInt32Ty());
    llvm::Value* all = b_.CreateICmpNE(b_.CreateLShr(r, 32), b_.getInt64(0));
    llvm::Value* pair = llvm::UndefValue::get(m_.value_type(type_of(n)));
    pair = b_.CreateInsertValue(pair, lanes, {0});
    return b_.CreateInsertValue(pair, all, {1});
  }
  int op = name == "shfl_sync"        ? target::kShflIdx
           : name == "shfl_up_sync"   ? target::kShflUp
           : name == "shfl_down_sync" ? target::kShflDown
                                      : target::kShflXor;
  llvm::Value* lane = expr_as(n.child(2), i32);
  llvm::Value* r = m_.hooks.warp(m_, b_, op, mask, bits, lane, thread_ctx_);
  if (is_float(s))
    return b_.CreateBitCast(b_.CreateTrunc(r, b_.getIntNTy(bit_width(s))), m_.scalar_type(s));
  return b_.CreateTrunc(r, m_.scalar_type(s));
}

}  // namespace cudajit::lower
