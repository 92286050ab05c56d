// Warp-level functions: shuffles (shfl_sync, shfl_up/down/xor_sync), votes
// (all/any/eq_sync, ballot_sync), match_any/all_sync, activemask and
// lanemask_lt. Values travel as 32- or 64-bit patterns: floats by their bits
// (so match compares bit patterns), narrower integers widened.
#include "cudajit/compiler/target.hpp"
#include "lowering.hpp"

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
