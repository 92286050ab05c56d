// Function bodies and control flow: variables live in allocas (mem2reg makes
// them SSA), parameters the body never assigns are their values; loops follow
// Python's semantics.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lowering.hpp"

namespace cudajit::lower {

using ir::Node;
using ir::NodeKind;

FunctionLowering::FunctionLowering(ModuleLowering& m, const typing::TypedFunction& f)
    : m_(m), f_(f), b_(m.context), facts_(f) {
  b_.setFastMathFlags(m.options.fastmath ? llvm::FastMathFlags::getFast() : llvm::FastMathFlags());
}

void FunctionLowering::lower() {
  begin(m_.functions.at(&f_));
  unsigned arg = 0;
  if (m_.hooks.has_thread_ctx()) thread_ctx_ = fn_->getArg(arg++);
  if (m_.grid_workspace) grid_workspace_ = fn_->getArg(arg++);
  std::vector<llvm::Value*> arguments;
  for (; arg < fn_->arg_size(); ++arg) arguments.push_back(fn_->getArg(arg));
  // Named as in Python, for the LLVM IR's reader (inspect_llvm).
  const auto& params = f_.function->params;
  for (size_t i = 0; i < arguments.size() && i < params.size(); ++i)
    if (!arguments[i]->hasName()) arguments[i]->setName(python_variable_name(params[i]));
  if (m_.stack_guarded.contains(&f_)) stack_guard();
  body(arguments);
}

void FunctionLowering::lower_into(llvm::Function* fn, const ArgumentMaker& arguments,
                                  llvm::Value* grid_workspace) {
  begin(fn);
  grid_workspace_ = grid_workspace;
  body(arguments(b_));
}

void FunctionLowering::begin(llvm::Function* fn) {
  fn_ = fn;
  b_.SetInsertPoint(llvm::BasicBlock::Create(m_.context, "entry", fn_));
  if (m_.debug_info != nullptr) {
    std::vector<Type> params;  // the Python function's own, not the front end's hidden ones
    for (size_t i = 0; i < f_.function->params.size(); ++i)
      if (is_python_variable(f_.function->params[i])) params.push_back(f_.arg_types[i]);
    subprogram_ = m_.debug_info->describe(*fn_, f_.function->name, f_.function->file,
                                          f_.function->loc.line, f_.return_type, params);
    b_.SetCurrentDebugLocation(m_.debug_info->at(subprogram_, f_.function->loc));
  }
}

namespace {

// The line where each name first appears in `nodes` (in program order): where a
// variable is first assigned.
void first_lines(const std::vector<ir::NodePtr>& nodes, std::map<std::string, int>& lines) {
  for (const auto& n : nodes) {
    if (n->kind == NodeKind::Name) lines.emplace(n->text, n->loc.line);
    first_lines(n->children, lines);
  }
}

// The bindings of each Python name with more than one (x, x#2 ...: a variable rebound to
// other types is several, one per web of definitions), by the Python name.
std::map<std::string, std::vector<std::string>> rebound_names(
    const std::map<std::string, Type>& locals) {
  std::map<std::string, std::vector<std::string>> bindings;
  for (const auto& [name, type] : locals)
    if (is_python_variable(name)) bindings[python_variable_name(name)].push_back(name);
  std::erase_if(bindings, [](const auto& entry) { return entry.second.size() < 2; });
  return bindings;
}

}  // namespace

// debug=True: every Python variable, parameters included, lives in a slot
// that the debug information describes (llvm.dbg.declare), so that cuda-gdb
// finds it in memory at -O0 and LLVM follows it into registers when optimising.
// A name rebound to other types is one variable, in the one slot its bindings
// share (see body), of the union of their types.
void FunctionLowering::describe_variables() {
  std::map<std::string, int> lines;
  first_lines(f_.function->body, lines);
  llvm::DILocation* prologue = m_.debug_info->at(subprogram_, f_.function->loc);
  const auto rebound = rebound_names(f_.locals);
  std::set<std::string> described;  // Python names
  auto declare = [&](const std::string& name, int line, unsigned arg) {
    const std::string python_name = python_variable_name(name);
    if (!described.insert(python_name).second) return;
    auto bindings = rebound.find(python_name);
    const bool shared =
        bindings != rebound.end() &&
        std::all_of(bindings->second.begin(), bindings->second.end(),
                    [&](const std::string& b) { return slots_.at(b) == slots_.at(name); });
    if (!shared) {
      described.erase(python_name);
      m_.debug_info->declare(slots_.at(name), subprogram_, name, f_.locals.at(name), line, arg,
                             prologue, b_.GetInsertBlock());
      return;
    }
    std::vector<Type> types;
    for (const std::string& binding : bindings->second) {
      types.push_back(f_.locals.at(binding));
      auto first = lines.find(binding);
      if (arg == 0 && first != lines.end()) line = std::min(line, first->second);
    }
    m_.debug_info->declare(slots_.at(name), subprogram_, python_name, types, line, arg, prologue,
                           b_.GetInsertBlock());
  };
  const auto& params = f_.function->params;
  unsigned arg = 0;
  for (const std::string& name : params) {
    if (!is_python_variable(name)) continue;
    ++arg;
    declare(name, f_.function->loc.line, arg);
  }
  for (const auto& [name, type] : f_.locals) {
    if (!slots_.contains(name) || !is_python_variable(name) ||
        std::find(params.begin(), params.end(), name) != params.end())
      continue;
    auto line = lines.find(name);
    declare(name, line == lines.end() ? f_.function->loc.line : line->second, 0);
  }
}

// debug=True: the bindings of a rebound name share one slot, sized and aligned for the
// largest, so that a debugger reading the name finds its current value whatever its type.
// A name holds one value at a time: a read is reached only by definitions of its own web,
// so a later binding's store never overwrites a value an earlier binding still reads.
void FunctionLowering::share_rebound_slots() {
  const llvm::DataLayout& layout = fn_->getParent()->getDataLayout();
  for (const auto& [python_name, bindings] : rebound_names(f_.locals)) {
    llvm::Type* largest = nullptr;
    llvm::Align align(1);
    for (const std::string& binding : bindings) {
      llvm::Type* t = m_.value_type(f_.locals.at(binding));
      if (largest == nullptr || layout.getTypeAllocSize(t) > layout.getTypeAllocSize(largest))
        largest = t;
      align = std::max(align, layout.getPrefTypeAlign(t));
    }
    const auto& params = f_.function->params;
    const bool param = std::any_of(bindings.begin(), bindings.end(), [&](const std::string& b) {
      return std::find(params.begin(), params.end(), b) != params.end();
    });
    for (const std::string& binding : bindings) slots_.at(binding)->eraseFromParent();
    llvm::AllocaInst* shared = make_slot(largest, python_name);
    if (param) shared->setName(python_name + ".addr");  // as in body
    shared->setAlignment(std::max(align, shared->getAlign()));
    for (const std::string& binding : bindings) slots_[binding] = shared;
  }
}

void FunctionLowering::body(const std::vector<llvm::Value*>& arguments) {
  const bool described = subprogram_ != nullptr && m_.debug_info->full();
  // opt=False: every Python variable in a slot too, as Numba's unoptimised code keeps its
  // variables in local memory (NVVM's -opt=0 promotes none to registers).
  const bool in_memory = described || m_.options.opt_level == 0;
  auto slotted = [&](const std::string& name) {
    return facts_.has_slot(name) || (in_memory && is_python_variable(name));
  };
  const auto& params = f_.function->params;
  auto is_param = [&](const std::string& name) {
    return std::find(params.begin(), params.end(), name) != params.end();
  };
  for (const auto& [name, type] : f_.locals) {
    if (!slotted(name)) continue;
    slots_[name] = make_slot(m_.value_type(type), name);
    // A parameter's slot is `x.addr` beside the argument `x`, as clang names them.
    if (is_param(name)) slots_[name]->setName(name + ".addr");
  }
  if (fission_) begin_split();
  if (described && !fission_) share_rebound_slots();
  if (described) describe_variables();
  for (size_t i = 0; i < params.size(); ++i) {
    llvm::Value* value = cast(arguments[i], f_.arg_types[i], f_.locals.at(params[i]));
    if (slotted(params[i]) && fission_) {
      thread_loop([&] { store_variable(params[i], value); });
    } else if (slotted(params[i])) {
      b_.CreateStore(value, slots_.at(params[i]));
    } else {
      parameters_[params[i]] = value;
    }
  }
  if (fission_)
    split_block(f_.function->body);
  else
    block(f_.function->body);
  if (!terminated()) {
    // Typing proved a value-returning function never gets here, but for falling off the
    // end of one that returns an optional number: None.
    if (f_.return_type.is_none())
      b_.CreateRetVoid();
    else if (f_.return_type.is_optional())
      b_.CreateRet(cast(nullptr, Type::none(), f_.return_type));
    else
      b_.CreateUnreachable();
  }
}

bool FunctionLowering::terminated() { return b_.GetInsertBlock()->getTerminator() != nullptr; }

// Code after return/break/continue goes into a block nothing branches to.
void FunctionLowering::start_dead_block() {
  b_.SetInsertPoint(llvm::BasicBlock::Create(m_.context, "dead", fn_));
}

void FunctionLowering::block(const std::vector<ir::NodePtr>& stmts) {
  for (const auto& s : stmts) stmt(*s);
}

void FunctionLowering::stmt(const Node& s) {
  const AtSource at(*this, s.loc);
  switch (s.kind) {
    case NodeKind::Assign:
      if (ir::is_character_constant(s.child(1))) {
        store_characters(s.child(0), s.child(1));
        return;
      }
      assign(s.child(0), expr(s.child(1)), type_of(s.child(1)));
      return;
    case NodeKind::AugAssign: {
      const Node& target = s.child(0);
      const Node& value = s.child(1);
      const Type& op_type = type_of(s);  // typing's type of `target op value`
      if (target.kind == NodeKind::Subscript &&
          (type_of(target.child(0)).is_array() || type_of(target.child(0)).is_pointer())) {
        // a[i] op= v reads and writes one element: compute its address once.
        const Type& array_type = type_of(target.child(0));
        llvm::Value* ptr = element_pointer(expr(target.child(0)), array_type,
                                           indices(target.child(1)), target.loc);
        Type element = Type::scalar(array_type.dtype());
        llvm::Value* current = load_element(ptr, array_type.dtype(), element_align(array_type));
        llvm::Value* v = binop(s, s.text, current, element, expr(value), type_of(value), op_type);
        store_element(ptr, cast(v, op_type, element), array_type.dtype(),
                      element_align(array_type));
        return;
      }
      if (target.kind == NodeKind::Attr && type_of(target.child(0)).is_record()) {
        // r.f op= v: the record's address once (its expression may have effects).
        const Type& record_type = type_of(target.child(0));
        const RecordLayout& layout = *record_type.record_layout();
        const RecordField& f = *layout.find(target.text);
        llvm::Value* ptr = field_pointer(expr(target.child(0)), f);
        const uint64_t align = field_align(layout, f);
        Type element = Type::scalar(f.dtype);
        llvm::Value* current = load_element(ptr, f.dtype, align);
        llvm::Value* v = binop(s, s.text, current, element, expr(value), type_of(value), op_type);
        store_element(ptr, cast(v, op_type, element), f.dtype, align);
        return;
      }
      llvm::Value* current = expr(target);
      llvm::Value* v =
          binop(s, s.text, current, type_of(target), expr(value), type_of(value), op_type);
      assign(target, v, op_type);
      return;
    }
    case NodeKind::If:
      if_stmt(s);
      return;
    case NodeKind::While:
      while_loop(s);
      return;
    case NodeKind::For:
      for_range(s);
      return;
    case NodeKind::Break:
    case NodeKind::Continue: {
      const Loop& loop = loops_.back();
      b_.CreateBr(s.kind == NodeKind::Break ? loop.break_target : loop.continue_target);
      start_dead_block();
      return;
    }
    case NodeKind::Pass:
      return;
    case NodeKind::Return:
      ret(s);
      return;
    case NodeKind::ExprStmt:
      expr(s.child(0));
      return;
    case NodeKind::Raise:
      raise(s.int_value);
      return;
    case NodeKind::Assert:
      assert_stmt(s);
      return;
    case NodeKind::Block:
      block(s.children);
      return;
    default:
      throw CompileError("internal: unexpected statement", s.loc);
  }
}

void FunctionLowering::assign(const Node& target, llvm::Value* value, const Type& value_type) {
  switch (target.kind) {
    case NodeKind::Name:
      store_variable(target.text, cast(value, value_type, f_.locals.at(target.text)));
      return;
    case NodeKind::Subscript: {
      const Type& array_type = type_of(target.child(0));
      llvm::Value* array = expr(target.child(0));
      if (ir::has_slice(target.child(1))) {
        const Type& view_type = type_of(target);
        Type element = Type::scalar(view_type.dtype());
        fill_view(slice_view(array, array_type, target), view_type,
                  cast(value, value_type, element));
        return;
      }
      llvm::Value* ptr = element_pointer(array, array_type, indices(target.child(1)), target.loc);
      if (array_type.is_record_array()) {
        copy_record(ptr, value, array_type);
        return;
      }
      Type element = Type::scalar(array_type.dtype());
      store_element(ptr, cast(value, value_type, element), array_type.dtype(),
                    element_align(array_type));
      return;
    }
    case NodeKind::Tuple:
      for (unsigned i = 0; i < target.size(); ++i)
        assign(target.child(i), extract(value, {i}), value_type.elements()[i]);
      return;
    case NodeKind::Attr:  // r.f = v: a record's field
      store_field(target, value, value_type);
      return;
    default:
      throw CompileError("internal: bad assignment target", target.loc);
  }
}

void FunctionLowering::if_stmt(const Node& s) {
  auto known = f_.constants.find(&s);  // `if x is None:` of an x never None: typing's choice
  if (known != f_.constants.end()) {
    expr(s.child(0));
    block(s.child(known->second ? 1 : 2).children);
    return;
  }
  llvm::Value* cond = to_bool(expr(s.child(0)), type_of(s.child(0)));
  auto* then_bb = llvm::BasicBlock::Create(m_.context, "if.then", fn_);
  auto* else_bb = llvm::BasicBlock::Create(m_.context, "if.else", fn_);
  auto* merge = llvm::BasicBlock::Create(m_.context, "if.end", fn_);
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  block(s.child(1).children);
  if (!terminated()) b_.CreateBr(merge);
  b_.SetInsertPoint(else_bb);
  block(s.child(2).children);
  if (!terminated()) b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  converge_after(s);
}

void FunctionLowering::while_loop(const Node& s) {
  auto* cond_bb = llvm::BasicBlock::Create(m_.context, "while.cond", fn_);
  auto* body_bb = llvm::BasicBlock::Create(m_.context, "while.body", fn_);
  auto* exit_bb = llvm::BasicBlock::Create(m_.context, "while.end", fn_);
  b_.CreateBr(cond_bb);
  b_.SetInsertPoint(cond_bb);
  abandon_point();  // host: every iteration (`continue` comes here too)
  b_.CreateCondBr(to_bool(expr(s.child(0)), type_of(s.child(0))), body_bb, exit_bb);
  b_.SetInsertPoint(body_bb);
  loops_.push_back({cond_bb, exit_bb});
  block(s.child(1).children);
  loops_.pop_back();
  if (!terminated()) b_.CreateBr(cond_bb);
  b_.SetInsertPoint(exit_bb);
  converge_after(s);
}

// for i in range(start, stop, step): a hidden counter walks the range and is
// copied into `i` at the top of each iteration, so the body may reassign `i`
// and `i` keeps its last value after the loop, as in Python. A zero step runs
// no iteration (Python raises ValueError; a kernel cannot).
// Host code runs the range in chunks of kAbandonChunk iterations with an abandon_point()
// between them: the loop over one chunk keeps a single exit, so it still vectorises.
void FunctionLowering::for_range(const Node& s) {
  constexpr int64_t kAbandonChunk = 4096;
  Type i64 = Type::scalar(Scalar::Int64);
  llvm::Value* start = expr_as(s.child(1), i64);
  llvm::Value* stop = expr_as(s.child(2), i64);
  llvm::Value* step = expr_as(s.child(3), i64);
  if (m_.grid_stride_loops.count(&s)) {
    // This thread's contiguous share of [0, stop) (grid_stride.cpp): start is its index in
    // the grid, step the grid's size.
    llvm::Value* n = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, stop, int64(0));
    step = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umax, step, int64(1));  // for SCEV
    llvm::Value* share = b_.CreateAdd(
        b_.CreateUDiv(n, step), b_.CreateZExt(b_.CreateICmpNE(b_.CreateURem(n, step), int64(0)),
                                              b_.getInt64Ty()));
    start = b_.CreateMul(start, share);
    stop = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateAdd(start, share), n);
    step = int64(1);
  }
  llvm::AllocaInst* counter;
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    counter = b_.CreateAlloca(b_.getInt64Ty(), nullptr, "range.counter");
  }
  b_.CreateStore(start, counter);
  auto* cond_bb = llvm::BasicBlock::Create(m_.context, "for.cond", fn_);
  auto* body_bb = llvm::BasicBlock::Create(m_.context, "for.body", fn_);
  auto* next_bb = llvm::BasicBlock::Create(m_.context, "for.next", fn_);
  auto* exit_bb = llvm::BasicBlock::Create(m_.context, "for.end", fn_);
  const bool chunked = thread_ctx_ != nullptr;
  auto* chunk_bb = chunked ? llvm::BasicBlock::Create(m_.context, "for.chunk", fn_) : nullptr;
  auto* chunk_end_bb =
      chunked ? llvm::BasicBlock::Create(m_.context, "for.chunk.end", fn_) : nullptr;
  llvm::Value* limit = nullptr;  // where this chunk ends (saturated: no wrap-around)
  if (chunked) {
    b_.CreateBr(chunk_bb);
    b_.SetInsertPoint(chunk_bb);
    abandon_point();
    llvm::Value* first = b_.CreateLoad(b_.getInt64Ty(), counter);
    llvm::Value* clamped = b_.CreateBinaryIntrinsic(
        llvm::Intrinsic::smax,
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, step, int64(1LL << 40)),
        int64(-(1LL << 40)));
    limit = b_.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_sat, first,
                                     b_.CreateMul(clamped, int64(kAbandonChunk)));
  }
  b_.CreateBr(cond_bb);

  b_.SetInsertPoint(cond_bb);
  llvm::Value* i = b_.CreateLoad(b_.getInt64Ty(), counter);
  llvm::Value* up = b_.CreateAnd(b_.CreateICmpSGT(step, int64(0)), b_.CreateICmpSLT(i, stop));
  llvm::Value* down = b_.CreateAnd(b_.CreateICmpSLT(step, int64(0)), b_.CreateICmpSGT(i, stop));
  llvm::Value* in_range = b_.CreateOr(up, down);
  if (chunked) {
    llvm::Value* in_chunk =
        b_.CreateOr(b_.CreateICmpSLT(i, limit), b_.CreateICmpSLT(step, int64(0)));
    in_chunk = b_.CreateAnd(
        in_chunk, b_.CreateOr(b_.CreateICmpSGT(i, limit), b_.CreateICmpSGT(step, int64(0))));
    b_.CreateCondBr(b_.CreateAnd(in_range, in_chunk), body_bb, chunk_end_bb);
    b_.SetInsertPoint(chunk_end_bb);  // the chunk is done: the next one, or the loop is
    b_.CreateCondBr(in_range, chunk_bb, exit_bb);
  } else {
    b_.CreateCondBr(in_range, body_bb, exit_bb);
  }

  b_.SetInsertPoint(body_bb);
  assign(s.child(0), i, i64);
  loops_.push_back({next_bb, exit_bb});
  block(s.child(4).children);
  loops_.pop_back();
  if (!terminated()) b_.CreateBr(next_bb);

  b_.SetInsertPoint(next_bb);
  llvm::Value* current = b_.CreateLoad(b_.getInt64Ty(), counter);
  b_.CreateStore(b_.CreateAdd(current, step), counter);
  b_.CreateBr(cond_bb);
  b_.SetInsertPoint(exit_bb);
  converge_after(s);
}

void FunctionLowering::ret(const Node& s) {
  if (next_thread_ != nullptr) {  // a split kernel's thread: done, its block goes on
    if (s.size() == 1) expr(s.child(0));
    b_.CreateStore(b_.getInt8(1), thread_flag(returned_));
    b_.CreateBr(next_thread_);
    start_dead_block();
    return;
  }
  if (f_.return_type.is_none()) {
    if (s.size() == 1) expr(s.child(0));
    b_.CreateRetVoid();
  } else if (s.size() == 0) {  // None, from a function that returns an optional number
    b_.CreateRet(cast(nullptr, Type::none(), f_.return_type));
  } else {
    b_.CreateRet(expr_as(s.child(0), f_.return_type));
  }
  start_dead_block();
}

}  // namespace cudajit::lower
