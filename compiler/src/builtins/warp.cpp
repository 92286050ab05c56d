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

bool is_vote(std::string_view name) {
  return name.starts_with("all") || name.starts_with("any") || name.starts_with("eq") ||
         name.starts_with("ballot");
}

}  // namespace

// What a lane gives warp function `name` (after "cuda."): a vote's predicate as i32 0/1,
// a shuffled or matched value's bits as i32 or i64.
llvm::Value* FunctionLowering::warp_operand_bits(const Node& n, std::string_view name) {
  const Node& operand = n.child(1);
  const Type& t = type_of(operand);
  if (is_vote(name)) return b_.CreateZExt(to_bool(expr(operand), t), b_.getInt32Ty());
  const Scalar s = t.scalar();
  llvm::Type* bits_type = b_.getIntNTy(transport_bits(s));
  llvm::Value* v = expr(operand);
  llvm::Value* bits =
      is_float(s) ? b_.CreateBitCast(v, b_.getIntNTy(bit_width(s))) : v;  // integers: widened below
  return is_signed(s) ? b_.CreateSExtOrTrunc(bits, bits_type)
                      : b_.CreateZExtOrTrunc(bits, bits_type);
}

llvm::Value* FunctionLowering::call_warp_builtin(const Node& n, std::string_view name) {
  const Type i32 = Type::scalar(Scalar::Int32);
  if (name == "lanemask_lt") {
    llvm::Value* lane = m_.hooks.special_register(b_, "laneid", thread_ctx_);
    return b_.CreateSub(b_.CreateShl(b_.getInt32(1), lane), b_.getInt32(1));
  }
  if (fission_) return exchanged_warp_call(n, name);  // between thread loops
  m_.synchronises = true;  // the cpu device exchanges values between its fibers
  if (name == "activemask") {
    // The call site tells the cpu device which lanes are together at this call.
    llvm::Value* site = b_.getInt32(m_.warp_sites++);
    return m_.hooks.warp(m_, b_, target::kActiveMask, b_.getInt32(0xffffffffu), nullptr, site,
                         thread_ctx_);
  }
  llvm::Value* mask = expr_as(n.child(0), Type::scalar(Scalar::UInt32));
  llvm::Value* bits = warp_operand_bits(n, name);

  if (is_vote(name)) {
    int op = name == "all_sync"   ? target::kVoteAll
             : name == "any_sync" ? target::kVoteAny
             : name == "eq_sync"  ? target::kVoteUni
                                  : target::kBallot;
    llvm::Value* r = m_.hooks.warp(m_, b_, op, mask, bits, nullptr, thread_ctx_);
    return op == target::kBallot ? r : b_.CreateICmpNE(r, b_.getInt32(0));
  }

  if (name.starts_with("match")) {
    if (name == "match_any_sync")
      return m_.hooks.warp(m_, b_, target::kMatchAny, mask, bits, nullptr, thread_ctx_);
    llvm::Value* r = m_.hooks.warp(m_, b_, target::kMatchAll, mask, bits, nullptr, thread_ctx_);
    return match_all_pair(n, r);
  }
  int op = name == "shfl_sync"        ? target::kShflIdx
           : name == "shfl_up_sync"   ? target::kShflUp
           : name == "shfl_down_sync" ? target::kShflDown
                                      : target::kShflXor;
  llvm::Value* lane = expr_as(n.child(2), i32);
  return shuffled_value(n, m_.hooks.warp(m_, b_, op, mask, bits, lane, thread_ctx_));
}

// match_all_sync's (lanes, all matched) from the runtime's lanes | all << 32.
llvm::Value* FunctionLowering::match_all_pair(const Node& n, llvm::Value* r) {
  llvm::Value* lanes = b_.CreateTrunc(r, b_.getInt32Ty());
  llvm::Value* all = b_.CreateICmpNE(b_.CreateLShr(r, 32), b_.getInt64(0));
  llvm::Value* pair = llvm::UndefValue::get(m_.value_type(type_of(n)));
  pair = b_.CreateInsertValue(pair, lanes, {0});
  return b_.CreateInsertValue(pair, all, {1});
}

// A shuffle's result from the bits it carried.
llvm::Value* FunctionLowering::shuffled_value(const Node& n, llvm::Value* r) {
  const Scalar s = type_of(n.child(1)).scalar();
  if (is_float(s))
    return b_.CreateBitCast(b_.CreateTrunc(r, b_.getIntNTy(bit_width(s))), m_.scalar_type(s));
  return b_.CreateTrunc(r, m_.scalar_type(s));
}

// A warp function in a block split into thread loops (barrier_fission.cpp): every lane of
// the warp stored its operand in the call's exchange array at the end of the previous
// loop; this thread's result is computed from its warp's elements. The lanes taking part
// are the warp's threads in the block (the masks are full): `width` of them.
llvm::Value* FunctionLowering::exchanged_warp_call(const Node& n, std::string_view name) {
  auto* i64 = b_.getInt64Ty();
  // `t`: the thread's element in the exchange arrays, `base` its warp's first; in a group's
  // warp loops (warp_groups.cpp) the arrays are the warp's, its lanes warp_width_.
  llvm::Value *t, *lane, *base, *width;
  if (warp_lane_ != nullptr) {
    t = lane = warp_lane_;
    base = b_.getInt64(0);
    width = warp_width_;
  } else {
    t = thread_id_;
    lane = b_.CreateAnd(t, b_.getInt64(31));
    base = b_.CreateSub(t, lane);
    llvm::Value* threads = b_.getInt64(1);
    for (int d = 3; d < 6; ++d) {  // blockDim in the thread context
      llvm::Value* dim =
          b_.CreateLoad(b_.getInt32Ty(), b_.CreateConstGEP1_32(b_.getInt32Ty(), thread_ctx_, d));
      threads = b_.CreateMul(threads, b_.CreateZExt(dim, i64));
    }
    width = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b_.CreateSub(threads, base),
                                     b_.getInt64(32));
  }
  // The warp's lanes in the block, as a mask: (1 << width) - 1.
  llvm::Value* lanes = b_.CreateTrunc(
      b_.CreateSub(b_.CreateShl(b_.getInt64(1), width), b_.getInt64(1)), b_.getInt32Ty());
  if (name == "activemask") return lanes;
  if (shuffles_a_slot(n)) {
    // shfl_down of a variable: lane + delta's value is still in the variable's array, as the
    // loop before left it (thread t + delta runs after t in this loop), and the thread's own
    // is the variable itself: no exchange array, one load fewer.
    llvm::Value* delta = b_.CreateAnd(
        b_.CreateZExt(expr_as(n.child(2), Type::scalar(Scalar::Int32)), i64), b_.getInt64(31));
    const std::string& name = n.child(1).text;
    llvm::Value* other = b_.CreateLoad(slots_.at(name)->getAllocatedType()->getArrayElementType(),
                                       slot_element(name, delta));
    llvm::Value* there = b_.CreateICmpULT(b_.CreateAdd(lane, delta), width);
    return b_.CreateSelect(there, other, expr(n.child(1)));
  }
  llvm::Type* bits_type = exchange_arrays().at(&n)->getAllocatedType()->getArrayElementType();
  auto element = [&](llvm::Value* thread) {
    return b_.CreateLoad(bits_type, exchange_element(n, thread));
  };
  llvm::Value* own = element(t);

  if (name.starts_with("shfl")) {
    // The lane or offset is the argument's low five bits (PTX's bval = b[4:0]).
    llvm::Value* arg = b_.CreateAnd(
        b_.CreateZExt(expr_as(n.child(2), Type::scalar(Scalar::Int32)), i64), b_.getInt64(31));
    llvm::Value *source, *other;
    if (name == "shfl_up_sync" || name == "shfl_down_sync") {
      // lane -+ delta; the load of thread t -+ delta stays in the array's spare ends (|delta|
      // < 32), and is contiguous across a thread loop.
      llvm::Value* offset = name == "shfl_up_sync" ? b_.CreateNeg(arg) : arg;
      source = b_.CreateAdd(lane, offset);
      other = element(b_.CreateAdd(t, offset));
    } else {
      source = name == "shfl_sync" ? arg : b_.CreateXor(lane, arg);
      other = element(b_.CreateAdd(base, source));
    }
    // Off the warp's edge (or past the block's last thread): the caller's own value.
    llvm::Value* there = b_.CreateICmpULT(source, width);
    return shuffled_value(n, b_.CreateSelect(there, other, own));
  }

  // Votes and matches: each lane of the warp, in a loop (width >= 1: this thread's lane).
  // A vote's lanes (and whether match_all's all matched) are the same for the whole warp:
  // counted once, by its lane 0, which the thread loop runs first, and kept for the rest.
  bool vote = is_vote(name);
  const bool per_warp = vote || name == "match_all_sync";
  llvm::AllocaInst* kept = nullptr;
  llvm::BasicBlock* after_count = nullptr;
  if (per_warp) {
    {
      llvm::IRBuilderBase::InsertPointGuard guard(b_);
      b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      kept = b_.CreateAlloca(b_.getInt32Ty(), nullptr, "warp.lanes.kept");
    }
    auto* count = llvm::BasicBlock::Create(m_.context, "warp.lanes.count", fn_);
    after_count = llvm::BasicBlock::Create(m_.context, "warp.lanes.counted", fn_);
    b_.CreateCondBr(b_.CreateICmpEQ(lane, b_.getInt64(0)), count, after_count);
    b_.SetInsertPoint(count);
  }
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(m_.context, "warp.lanes", fn_);
  auto* done = llvm::BasicBlock::Create(m_.context, "warp.lanes.end", fn_);
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::PHINode* l = b_.CreatePHI(i64, 2);
  llvm::PHINode* acc = b_.CreatePHI(b_.getInt32Ty(), 2);
  l->addIncoming(b_.getInt64(0), pre);
  acc->addIncoming(b_.getInt32(0), pre);
  llvm::Value* v = element(b_.CreateAdd(base, l));
  llvm::Value* hit =
      vote ? b_.CreateICmpNE(v, llvm::ConstantInt::get(bits_type, 0)) : b_.CreateICmpEQ(v, own);
  llvm::Value* bit =
      b_.CreateShl(b_.CreateZExt(hit, b_.getInt32Ty()), b_.CreateTrunc(l, b_.getInt32Ty()));
  llvm::Value* next_acc = b_.CreateOr(acc, bit);
  llvm::Value* next = b_.CreateAdd(l, b_.getInt64(1));
  l->addIncoming(next, head);
  acc->addIncoming(next_acc, head);
  b_.CreateCondBr(b_.CreateICmpULT(next, width), head, done);
  b_.SetInsertPoint(done);
  llvm::Value* set = next_acc;  // the lanes whose predicate is true / whose value is ours
  if (per_warp) {
    b_.CreateStore(set, kept);
    b_.CreateBr(after_count);
    b_.SetInsertPoint(after_count);
    set = b_.CreateLoad(b_.getInt32Ty(), kept);
  }
  if (name == "ballot_sync") return set;
  if (name == "all_sync") return b_.CreateICmpEQ(set, lanes);
  if (name == "any_sync") return b_.CreateICmpNE(set, b_.getInt32(0));
  if (name == "eq_sync")
    return b_.CreateOr(b_.CreateICmpEQ(set, lanes), b_.CreateICmpEQ(set, b_.getInt32(0)));
  if (name == "match_any_sync") return set;
  llvm::Value* all = b_.CreateICmpEQ(set, lanes);  // match_all_sync
  llvm::Value* r = b_.CreateSelect(
      all, b_.CreateOr(b_.CreateZExt(lanes, i64), b_.getInt64(int64_t(1) << 32)), b_.getInt64(0));
  return match_all_pair(n, r);
}

}  // namespace cudajit::lower
