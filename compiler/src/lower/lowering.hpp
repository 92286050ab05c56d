// Internal to lower/ and builtins/: typed kernel IR -> LLVM IR. One FunctionLowering per
// specialisation; its methods are split by concept over statements.cpp, expressions.cpp,
// arrays.cpp, convert.cpp ..., and the builtins' families (builtins/*.cpp).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cudajit/compiler/compile.hpp"
#include "cudajit/compiler/typed.hpp"
#include "debug_info.hpp"
#include "variable_facts.hpp"

namespace cudajit::lower {

enum class TargetKind { Nvptx, Host };

struct ModuleLowering;

// Host: an integer array parameter of the kernel that it only updates with atomics whose
// old value it drops, all merging alike (private_atomics.cpp): `bit` of the thread
// context's kPrivateCopies says that the running worker updates a copy of its own.
struct PrivateAtomics {
  int param;  // its place among the kernel's parameters
  int bit;
  std::optional<llvm::AtomicRMWInst::BinOp> merge;  // how a copy is merged into the array
  Scalar element;
};
// The entry's copy of one such array for a run of blocks (made: whether it made one).
struct PrivateCopy {
  const PrivateAtomics* atomics;
  llvm::Value* made;
  llvm::Value* buffer;
  llvm::Value* origin;    // the array's lowest byte
  llvm::Value* elements;  // the copy's length
};

// Fields of target::HostThreadContext, in the order ModuleLowering::thread_ctx_type lays out.
enum HostContextField : unsigned {
  kRegisters = 0,
  kErrors = 1,
  kShared = 2,
  kDynamicShared = 3,
  kDynamicSharedBytes = 4,
  kBarrier = 5,
  kWarp = 6,
  kRuntime = 7,
  kRaised = 8,
  kStackLimit = 9,
  kStackOverflow = 10,
  kAbandon = 11,
  kPrivateCopies = 12,
};

// What differs between the GPU and the cpu device inside a function body.
class TargetHooks {
 public:
  virtual ~TargetHooks() = default;
  // "threadIdx.x" ... "gridDim.z", "laneid", "warpsize", as i32. `thread_ctx`
  // is the host's hidden per-thread context (null on nvptx).
  virtual llvm::Value* special_register(llvm::IRBuilder<>& b, std::string_view name,
                                        llvm::Value* thread_ctx) = 0;
  // The symbol of a C math function: ("sin", f32) -> "__nv_sinf" or "sinf".
  virtual std::string math_symbol(std::string_view name, bool f32) const = 0;
  // The fast approximate float32 version of a math function that fastmath=True calls, as
  // Numba does ("cos" -> "__nv_fast_cosf"); empty where there is none (the host's libm).
  virtual std::string fast_math_symbol(std::string_view) const { return {}; }
  // A fastmath=True float32 math function that is one instruction of the target for
  // compute capability `cc` rather than a library call, as Numba lowers it (tanh ->
  // tanh.approx.f32 on sm_75 and later); null where there is none.
  virtual llvm::Value* fast_math_instruction(llvm::IRBuilder<>&, std::string_view,
                                             llvm::ArrayRef<llvm::Value*>, int) const {
    return nullptr;
  }
  // True on the host: every function takes the thread context first.
  virtual bool has_thread_ctx() const = 0;
  // A generic pointer to a new static shared array (`bytes` long, `alignment` aligned).
  virtual llvm::Value* static_shared(ModuleLowering& m, llvm::IRBuilder<>& b,
                                     llvm::ArrayType* storage, uint64_t bytes, uint64_t alignment,
                                     llvm::Value* thread_ctx) = 0;
  // The dynamic shared memory (the launch's `sharedmem` bytes): its address and size (i64).
  virtual llvm::Value* dynamic_shared(ModuleLowering& m, llvm::IRBuilder<>& b,
                                      llvm::Value* thread_ctx) = 0;
  virtual llvm::Value* dynamic_shared_bytes(ModuleLowering& m, llvm::IRBuilder<>& b,
                                            llvm::Value* thread_ctx) = 0;
  // printf(format, args...) of a whole line: vprintf on the GPU, one write
  // to stdout on the host. `args` are i64, double or pointers to strings.
  virtual void print(ModuleLowering& m, llvm::IRBuilder<>& b, const std::string& format,
                     const std::vector<llvm::Value*>& args) = 0;
  // A generic pointer to the string `if_true` or `if_false` (NUL-terminated),
  // chosen by the i1 `condition`.
  virtual llvm::Value* constant_string(ModuleLowering& m, llvm::IRBuilder<>& b,
                                       const std::string& if_true, const std::string& if_false,
                                       llvm::Value* condition) = 0;
  // Stops a thread that raised: true when it ends there (PTX exit); false when
  // the host marks its context and the function must return.
  virtual bool stop_thread(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* thread_ctx) = 0;
  // Host: whether the thread raised (i1).
  virtual llvm::Value* raised(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* thread_ctx) = 0;
  // A generic pointer to read-only data (constant memory on the GPU).
  virtual llvm::Value* constant_data(ModuleLowering& m, llvm::IRBuilder<>& b,
                                     const std::string& bytes) = 0;
  // syncthreads (op target::kBarrierSync, result unused), its reductions of
  // an i32 predicate (count, and, or) returning i32, and syncwarp (kWarpSync,
  // the mask as predicate).
  virtual llvm::Value* barrier(ModuleLowering& m, llvm::IRBuilder<>& b, int op,
                               llvm::Value* predicate, llvm::Value* thread_ctx) = 0;
  // threadfence_block ("block"), threadfence ("device"), threadfence_system ("system").
  virtual void fence(llvm::IRBuilder<>& b, std::string_view scope) = 0;
  // A warp operation (target::WarpOp) among the lanes of `mask` (i32): `value`
  // is an i32 or i64 pattern (or an i32 predicate), `arg` the lane, delta or
  // call site. Returns shuffles at the value's width, match_all as i64 (lanes,
  // bit 32: all matched), the rest as i32.
  virtual llvm::Value* warp(ModuleLowering& m, llvm::IRBuilder<>& b, int op, llvm::Value* mask,
                            llvm::Value* value, llvm::Value* arg, llvm::Value* thread_ctx) = 0;
  // cuda.cg.this_grid().sync(): waits until every thread of the grid has
  // reached it. `context` is the host's thread context, or on the GPU the
  // launch's grid workspace (two zeroed u64: arrivals, generation).
  virtual void grid_sync(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* context) = 0;
  // Host: the lanes of the warp meet here, after a branch or loop that holds a block
  // barrier (target::kConverge). The GPU reconverges by itself.
  virtual void converge(ModuleLowering&, llvm::IRBuilder<>&, int /*line*/, llvm::Value*) {}
};

std::unique_ptr<TargetHooks> make_hooks(TargetKind kind);

// State shared by the functions of one LLVM module.
struct ModuleLowering {
  llvm::LLVMContext& context;
  llvm::Module& module;
  TargetHooks& hooks;
  CompileOptions options;
  std::unordered_map<const typing::TypedFunction*, llvm::Function*> functions;
  DebugInfo* debug_info = nullptr;  // lineinfo or debug: set while lowering for nvptx
  // Host: bytes of static shared arrays so far (each array's offset is the
  // total before it); whether any function synchronises the block.
  uint64_t static_shared_bytes = 0;
  bool synchronises = false;
  bool may_raise = false;  // a function of the program raises or asserts
  // Host functions that can call themselves: each checks the thread's stack on entry.
  std::unordered_set<const typing::TypedFunction*> stack_guarded{};
  // GPU: the program syncs the grid, so every function takes the grid
  // workspace pointer first (the kernel gets it as a last, hidden parameter).
  bool grid_workspace = false;
  int warp_sites = 0;  // activemask calls so far: each call site's number
  // Host: the functions that sync their block (directly or through calls), and the
  // statements of the kernel's body after which the thread ends (no meeting needed there).
  std::unordered_set<const typing::TypedFunction*> block_syncing{};
  std::unordered_set<const ir::Node*> tail_statements{};
  // Host: the kernel's grid-stride loops whose threads may take contiguous shares
  // (grid_stride.cpp).
  std::unordered_set<const ir::Node*> grid_stride_loops{};
  // Host: the kernel's block runs as thread loops split at its barriers (no fibers).
  bool split_barriers = false;
  // Host: a 2-D or 3-D kernel (cuda.grid(2) or (3)) that reads threadIdx.x and blockIdx.x
  // only through cuda.grid's sum (not alone, nor laneid): a row of its blocks runs as one
  // loop over the row's x (host_kernel), not a short loop per block.
  bool rows_as_one_loop = false;
  std::string not_split_because{};  // why a block that synchronises is not split
  // Host: the kernel's loops threads leave at different iterations, run in lockstep across
  // a split block's threads, and the `if`s they are in (lockstep_statements).
  std::unordered_set<const ir::Node*> lockstep{};
  std::string no_lockstep_because{};  // why loops that could be are not (the host's CPU)
  // Host: the kernel's arrays it only updates atomically, by parameter name
  // (find_private_atomics), and that kernel.
  std::map<std::string, PrivateAtomics> private_atomics{};
  const typing::TypedFunction* private_atomics_kernel = nullptr;

  llvm::Type* value_type(const Type& t);  // in registers: bool is i1
  llvm::Type* memory_type(Scalar s);      // in memory: bool is i8
  llvm::Type* scalar_type(Scalar s);
  llvm::StructType* array_struct(int ndim);  // {ptr data, [N x i64] shape, [N x i64] strides}
  llvm::StructType* thread_ctx_type();       // host only: target::HostThreadContext
  llvm::StructType* error_record_type();     // host only: target::IndexErrorRecord
  llvm::Function* declare(const typing::TypedFunction& f);
  llvm::FunctionCallee math_function(std::string_view name, Scalar float_type, int arity);
};

// Bounds checking of one access: all indices in bounds, else the first bad one.
struct IndexCheck {
  llvm::Value* ok = nullptr;
  llvm::Value* axis = nullptr;  // i32
  llvm::Value* index = nullptr;
  llvm::Value* extent = nullptr;
};

// An index into an array, as i64; `nonnegative` when it cannot be negative,
// so that it needs no wrap-around.
struct ArrayIndex {
  llvm::Value* v;
  bool nonnegative;
};

// A value with its kernel-language type.
struct Value {
  llvm::Value* v;
  Type type;
};

class FunctionLowering {
 public:
  FunctionLowering(ModuleLowering& m, const typing::TypedFunction& f);
  // Lowers the function as its own LLVM function (ModuleLowering::declare).
  void lower();
  // Host: the kernel runs a whole block, as thread loops split at its barriers
  // (barrier_fission.cpp; ModuleLowering::split_barriers).
  void split_threads();
  void begin_split();  // barrier_fission.cpp: the split body's start
  bool shuffles_a_slot(const ir::Node& call) const;  // barrier_fission.cpp
  // Lowers the body into `fn`, an empty function of another signature (a
  // kernel's .entry): `arguments` makes the parameters' values in its entry block.
  using ArgumentMaker = std::function<std::vector<llvm::Value*>(llvm::IRBuilder<>&)>;
  void lower_into(llvm::Function* fn, const ArgumentMaker& arguments,
                  llvm::Value* grid_workspace = nullptr);

  // --- shared helpers, used across the files of lower/ -----------------------------
  llvm::IRBuilder<>& builder() { return b_; }
  llvm::Value* cast(llvm::Value* v, const Type& from, const Type& to);
  llvm::Value* datetime_cast(llvm::Value* v, Scalar from, Scalar to);
  llvm::Value* datetime_binop(const std::string& op, llvm::Value* a, const Type& ta,
                              llvm::Value* b, const Type& tb, const Type& result);
  llvm::Value* to_bool(llvm::Value* v, const Type& t);
  llvm::Value* int64(int64_t v) { return b_.getInt64(v); }
  llvm::Value* float_const(Scalar s, double v);
  llvm::Value* zero_value(const Type& t);
  llvm::Value* call_math(std::string_view name, Scalar float_type, std::vector<llvm::Value*> args);
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Type*> types,
                         std::vector<llvm::Value*> args);
  // A field of an aggregate: the inserted value itself when `aggregate` was
  // built here (the kernel's array arguments, tuples), so LLVM has less to fold.
  llvm::Value* extract(llvm::Value* aggregate, llvm::ArrayRef<unsigned> indices);
  const Type& type_of(const ir::Node& n) const { return f_.type_of(n); }
  // A call's arguments, a `*tuple`'s items in its place (ir::NodeKind::Star).
  std::vector<Value> argument_values(const ir::Node& n);
  llvm::Value* make_complex(llvm::Value* re, llvm::Value* im, Scalar s);
  llvm::Value* re(llvm::Value* c) { return extract(c, {0}); }
  llvm::Value* im(llvm::Value* c) { return extract(c, {1}); }

  // --- builtins: builtins.cpp looks a call up in the registry (builtins/registry.hpp),
  // whose rows (builtins/<family>.cpp, which define most of these) call these -----------
  llvm::Value* call_builtin(const ir::Node& n);
  llvm::Value* round(llvm::Value* x, Scalar s, llvm::Value* ndigits);  // python_builtins.cpp
  llvm::Value* min_max(const ir::Node& n, bool is_min, std::vector<Value> args);
  void print(const ir::Node& n);  // lower/print.cpp
  // math.cpp: `name` after "math."
  llvm::Value* call_math_builtin(const ir::Node& n, std::string_view name, std::vector<Value> args);
  llvm::Value* call_math_pair(const ir::Node& n, std::string_view name, std::vector<Value> args);
  // libdevice_support.cpp, synchronization.cpp, warp.cpp: `name` after "cuda."
  llvm::Value* call_libdevice_support(const ir::Node& n, std::string_view name);
  llvm::Value* call_sync_builtin(const ir::Node& n, std::string_view name);
  llvm::Value* call_warp_builtin(const ir::Node& n, std::string_view name);
  llvm::Value* call_atomic(const ir::Node& n, std::string_view op);  // atomics.cpp: "add" ...
  // private_atomics.cpp: the facts of `array` when it is a privately updated parameter of
  // the kernel being lowered (else null), and such an update of the element at `ptr`.
  const PrivateAtomics* private_atomics(const ir::Node& array) const;
  llvm::Value* private_atomic(const PrivateAtomics& atomics, llvm::AtomicRMWInst::BinOp op,
                              llvm::Value* ptr, llvm::Value* v, llvm::Align align);
  llvm::Value* call_cache_hint(const ir::Node& n, std::string_view op);  // "ldca" ... "stwt"
  // thread_indexing.cpp: "threadIdx.x" ... as i32; cuda.grid(N) / cuda.gridsize(N).
  llvm::Value* special_register(const std::string& name);
  llvm::Value* grid_position(const ir::Node& n, bool size);
  // memory.cpp: cuda.shared.array, cuda.local.array, frozen and captured arrays.
  llvm::Value* shared_array(const ir::Node& n);
  llvm::Value* local_array(const ir::Node& n);
  llvm::Value* const_array(const ir::Node& n);
  llvm::Value* captured_array(const ir::Node& n);
  // front_end_forms.cpp, lower/arrays.cpp, lower/exceptions.cpp, lower/foreign_calls.cpp.
  llvm::Value* vector_value(const ir::Node& n);
  llvm::Value* ufunc_size(const ir::Node& n);
  llvm::Value* ufunc_item(const ir::Node& n);
  void ufunc_store(const ir::Node& n);
  llvm::Value* checked(const ir::Node& n);       // debug.*
  llvm::Value* call_foreign(const ir::Node& n);  // extern.NAME (cuda.declare_device)

 private:
  // statements.cpp
  void begin(llvm::Function* fn);
  void body(const std::vector<llvm::Value*>& arguments);
  void describe_variables();  // debug=True: each Python variable's slot
  void share_rebound_slots();  // debug=True: one slot for each rebound name's bindings
  void block(const std::vector<ir::NodePtr>& stmts);
  void stmt(const ir::Node& s);
  void assign(const ir::Node& target, llvm::Value* value, const Type& value_type);
  void for_range(const ir::Node& s);
  void while_loop(const ir::Node& s);
  void if_stmt(const ir::Node& s);
  // synchronization.cpp: whether `s` holds a block barrier (directly or through a call),
  // and, if so, the host's meeting point after it.
  bool syncs_block(const ir::Node& s) const;
  // Split at barriers (barrier_fission.cpp): a variable's slot is an array of one
  // element per thread, thread_id_ the current thread's index in it.
  bool kept_per_thread(const std::string& name) const;
  llvm::Value* slot(const std::string& name);
  // A variable's value stored in or loaded from its slot (a bool kept per thread is a byte).
  void store_variable(const std::string& name, llvm::Value* value);
  llvm::Value* load_variable(const std::string& name, llvm::Type* type);
  llvm::AllocaInst* make_slot(llvm::Type* type, const std::string& name);
  void thread_loop(const std::function<void()>& body, llvm::Value* x_begin = nullptr,
                   llvm::Value* x_end = nullptr);
  using RowLoop = std::function<void(const std::function<void()>& body, llvm::Value* x_begin,
                                     llvm::Value* x_end, bool lockstep)>;
  void thread_rows(const std::function<void(const RowLoop& x_loop)>& row);
  using ChunkLoop = std::function<void(const std::function<void()>& body, bool by_index)>;
  void lockstep_chunks(const std::function<void(const ChunkLoop& chunk_loop)>& chunk);
  void index_loop(int d, llvm::Value* begin, llvm::Value* end, bool maybe_empty, bool lockstep,
                  const std::function<void(llvm::Value*)>& body);
  using BlockDims = std::array<llvm::Value*, 3>;
  BlockDims block_dims();
  llvm::Value* linear_thread(llvm::Value* z, llvm::Value* y, llvm::Value* x, const BlockDims& dims);
  void one_thread(llvm::Value* linear, bool recompute, const std::function<void()>& body);
  llvm::AllocaInst* thread_flags(const char* name);
  llvm::AllocaInst* thread_array(llvm::Type* element, uint64_t count, const char* name);
  llvm::Value* thread_flag(llvm::AllocaInst* flags);  // the current thread's byte
  bool x_range(const ir::Node& s, llvm::Value*& x_begin, llvm::Value*& x_end);
  void as_thread_zero();
  void block_scalar_assignment(const ir::Node& s);
  void split_block(const std::vector<ir::NodePtr>& stmts);
  void split_for(const ir::Node& s);
  llvm::Value* range_holds(llvm::Value* i, llvm::Value* stop, llvm::Value* step);
  // Thread loops between block barriers, split by warp functions and syncwarp: run k ends by
  // storing the operands of ends[k] (nullptr: a syncwarp). Run per warp where blockDim.x is
  // a multiple of 32 (warp_groups.cpp).
  // guards[k]: run k's statements run only in the threads where `if_node`'s condition is
  // `taken` (a branch of a warp `if`, barrier_fission.cpp, or a lockstep `if`,
  // lockstep_loops.cpp), none for the others.
  struct RunGuard {
    const ir::Node* if_node;  // nullptr: none
    bool taken;
  };
  struct WarpGroup {
    std::vector<std::vector<const ir::Node*>> runs = {{}};
    std::vector<const ir::Node*> ends;
    std::vector<RunGuard> guards = {RunGuard{nullptr, true}};
    // Ends the last run at `end` and starts the next with `first`.
    void next_run(const ir::Node* end, std::vector<const ir::Node*> first = {},
                  RunGuard guard = {nullptr, true}) {
      ends.push_back(end);
      runs.push_back(std::move(first));
      guards.push_back(guard);
    }
  };
  void add_warp_if(WarpGroup& group, const ir::Node& s);
  // lockstep_loops.cpp: loops threads leave at different iterations, alone or in an `if`.
  struct LockstepRange {
    llvm::Value *start, *stop, *step;
  };
  void lockstep(const std::vector<const ir::Node*>& stmts, RunGuard guard);
  void lockstep_iterations(const ir::Node& s, const LockstepRange* range,
                           const ChunkLoop& chunk_loop);
  bool reads_thread_index(const ir::Node& n) const;
  bool same_in_every_run(const ir::Node& e) const;
  // Where the guard's condition holds, as the current thread sees it (true: no guard).
  llvm::Value* guard_holds(RunGuard guard);
  void split_group(const WarpGroup& group);
  void split_run(const std::vector<const ir::Node*>& run, const ir::Node* end, RunGuard guard,
                 bool ranged);
  void guarded(RunGuard guard, const std::function<void()>& body);
  void guarded_by(llvm::Value* holds, const std::function<void()>& body);
  bool fusable(const WarpGroup& group) const;
  std::unordered_set<std::string> warp_local_names(const WarpGroup& group) const;
  void warp_loops(const WarpGroup& group, bool whole_rows);
  void warp_runs(const WarpGroup& group, llvm::Value* width, bool unrolled,
                 const std::function<void()>& start,
                 const std::function<void(llvm::Value*)>& enter,
                 const std::function<void()>& leave);
  llvm::Value* slot_element(const std::string& name, llvm::Value* offset, int part = -1);
  // Warp functions between thread loops (barrier_fission.cpp, warp.cpp): the operand
  // each thread stores, the exchange array's element of a thread, the result.
  void store_warp_operands(const ir::Node& s);
  llvm::Value* warp_operand_bits(const ir::Node& call, std::string_view name);
  llvm::Value* exchange_element(const ir::Node& call, llvm::Value* thread);
  llvm::Value* exchanged_warp_call(const ir::Node& call, std::string_view name);
  llvm::Value* match_all_pair(const ir::Node& call, llvm::Value* r);
  llvm::Value* shuffled_value(const ir::Node& call, llvm::Value* r);
  void converge_after(const ir::Node& s);
  void ret(const ir::Node& s);
  void start_dead_block();
  bool terminated();

  // expressions.cpp
  llvm::Value* expr(const ir::Node& n);
  llvm::Value* expr_as(const ir::Node& n, const Type& t);
  llvm::Value* binop(const ir::Node& n, const std::string& op, llvm::Value* a, const Type& ta,
                     llvm::Value* b, const Type& tb, const Type& result);
  llvm::Value* int_binop(const std::string& op, llvm::Value* a, llvm::Value* b, Scalar s);
  llvm::Value* float_binop(const std::string& op, llvm::Value* a, llvm::Value* b, Scalar s);
  llvm::Value* complex_binop(const std::string& op, llvm::Value* a, llvm::Value* b, Scalar s);
  llvm::Value* compare(const std::string& op, llvm::Value* a, const Type& ta, llvm::Value* b,
                       const Type& tb);
  bool speculatable(const ir::Node& n) const;
  bool rest_speculatable(const ir::Node& n) const;
  llvm::Value* compare_chain(const ir::Node& n);
  llvm::Value* bool_op(const ir::Node& n);
  llvm::Value* if_exp(const ir::Node& n);
  llvm::Value* unary(const ir::Node& n);
  llvm::Value* int_power(llvm::Value* a, llvm::Value* b, Scalar s);
  llvm::Value* call_function(const ir::Node& n);

  // arrays.cpp (and tuples)
  llvm::Value* subscript(const ir::Node& n);
  llvm::Value* attribute(const ir::Node& n);
  std::vector<ArrayIndex> indices(const ir::Node& index_node);
  llvm::Value* byte_offset(llvm::Value* array, const std::vector<ArrayIndex>& idx, int unit_dim,
                           int itemsize, IndexCheck* check);
  llvm::Value* element_pointer(llvm::Value* array, const Type& t,
                               const std::vector<ArrayIndex>& idx, SourceLoc loc);
  llvm::Value* slice_view(llvm::Value* array, const Type& t, const ir::Node& subscript);
  void fill_view(llvm::Value* view, const Type& t, llvm::Value* value);
  llvm::Value* view(llvm::Value* array, const Type& t, const std::vector<ArrayIndex>& idx,
                    const Type& result, SourceLoc loc);
  bool checks_bounds() const;
  llvm::Value* guard(llvm::Value* ptr, const IndexCheck& check, SourceLoc loc);
  // `align`: what the address is known to be aligned to; 0: dtype's natural alignment.
  // element_align(array) is that of the array's elements: 1 for an unaligned array.
  static uint64_t element_align(const Type& array) { return array.aligned() ? 0 : 1; }
  // That of a record's field: less than natural in a packed record (RecordLayout).
  static uint64_t field_align(const RecordLayout& r, const RecordField& f) {
    return static_cast<uint64_t>(r.field_alignment(f));
  }
  llvm::Value* load_element(llvm::Value* ptr, Scalar dtype, uint64_t align = 0);
  void store_element(llvm::Value* ptr, llvm::Value* v, Scalar dtype, uint64_t align = 0);
  // records.cpp
  llvm::Value* field_pointer(llvm::Value* record, const RecordField& field);
  llvm::Value* record_field(const ir::Node& n);
  void store_field(const ir::Node& target, llvm::Value* value, const Type& value_type);
  void store_characters(const ir::Node& target, const ir::Node& value);
  void copy_record(llvm::Value* to, llvm::Value* from, const Type& t);
  llvm::Value* tuple_item(llvm::Value* tuple, const Type& t, const ir::Node& n, llvm::Value* index);
  // array_views.cpp
  llvm::Value* array_method(const ir::Node& n);  // a.reshape(...), a.view(dtype)
  llvm::Value* array_reshape(const ir::Node& n);
  llvm::Value* array_view_as(const ir::Node& n);
  // arrays.cpp (a ufunc's output position) and print.cpp
  std::vector<ArrayIndex> unravel(llvm::Value* out, const Type& t, llvm::Value* flat);
  void print_value(llvm::Value* v, const Type& t, std::string& format,
                   std::vector<llvm::Value*>& args);
  // exceptions.cpp: raise and assert
  void raise(int64_t code);
  void assert_stmt(const ir::Node& s);
  void leave_raising();
  void stack_guard();
  void abandon_point();
  void raise_if(llvm::Value* condition, int64_t code);
  void return_if_raised();
  // builtins/memory.cpp and builtins/atomics.cpp
  llvm::Value* constant_shape_array(llvm::Value* data, const Type& t,
                                    const std::vector<int64_t>& shape);
  llvm::Value* atomic_float_update(llvm::Value* ptr, Scalar s,
                                   const std::function<llvm::Value*(llvm::Value*)>& update);

  struct Loop {
    llvm::BasicBlock* continue_target;
    llvm::BasicBlock* break_target;
  };

  // With line tables, the instructions made while alive carry `loc`; the
  // enclosing node's location comes back after.
  class AtSource {
   public:
    AtSource(FunctionLowering& f, SourceLoc loc) : f_(f) {
      if (f.subprogram_ == nullptr || loc.line <= 0) return;
      saved_ = f.b_.getCurrentDebugLocation();
      active_ = true;
      f.b_.SetCurrentDebugLocation(f.m_.debug_info->at(f.subprogram_, loc));
    }
    ~AtSource() {
      if (active_) f_.b_.SetCurrentDebugLocation(saved_);
    }
    AtSource(const AtSource&) = delete;
    AtSource& operator=(const AtSource&) = delete;

   private:
    FunctionLowering& f_;
    llvm::DebugLoc saved_;
    bool active_ = false;
  };

  ModuleLowering& m_;
  const typing::TypedFunction& f_;
  llvm::Function* fn_ = nullptr;
  llvm::DISubprogram* subprogram_ = nullptr;  // with debug information
  llvm::IRBuilder<> b_;
  llvm::Value* thread_ctx_ = nullptr;
  llvm::Value* grid_workspace_ = nullptr;  // GPU, when ModuleLowering::grid_workspace
  const VariableFacts facts_;
  std::map<std::string, llvm::AllocaInst*> slots_;
  bool fission_ = false;
  llvm::Value* thread_id_ = nullptr;
  // Split, in a kernel that returns early: whether each thread has returned (an i8 per
  // thread; later thread loops skip it), and where a returning thread goes (the thread
  // loop's next thread).
  bool early_returns_ = false;
  llvm::AllocaInst* returned_ = nullptr;
  llvm::BasicBlock* next_thread_ = nullptr;
  // Split: variables each thread loop computes again (recomputed_variables).
  std::vector<const ir::Node*> recomputed_;
  std::unordered_set<std::string> recomputed_targets_;  // the names they assign
  std::unordered_set<std::string> recomputed_names_;  // and block scalars: scalar slots
  std::unordered_set<const ir::Node*> hoisted_;        // block scalars' assignments
  std::unordered_set<std::string> block_scalars_;
  std::unordered_set<const ir::Node*> warp_ifs_;  // is_warp_if: their branches join groups
  std::unordered_set<const ir::Node*> lockstep_;  // ModuleLowering::lockstep
  llvm::AllocaInst* lockstep_active_ = nullptr;   // a flag per thread (lockstep_loops.cpp)
  std::unordered_map<const ir::Node*, llvm::AllocaInst*> exchanges_;  // per warp call
  // Split, in a group's per-warp loops (warp_groups.cpp): the lane (i64), the variables kept
  // per warp (an element per lane, in warp_slots_) and the exchange arrays per warp.
  llvm::Value* warp_lane_ = nullptr;
  llvm::Value* warp_width_ = nullptr;  // the warp's lanes (i64): 32 but in a short last warp
  std::unordered_set<std::string> warp_local_;
  std::unordered_map<std::string, llvm::AllocaInst*> warp_slots_;
  std::unordered_map<const ir::Node*, llvm::AllocaInst*> warp_exchanges_;
  // The exchange arrays in use: the warp's in a group's warp loops, else the block's.
  std::unordered_map<const ir::Node*, llvm::AllocaInst*>& exchange_arrays() {
    return warp_lane_ != nullptr ? warp_exchanges_ : exchanges_;
  }
  int split_loop_depth_ = 0;  // split loops around the statements being lowered
  // Parameters the body never assigns: their values, with no slot.
  std::map<std::string, llvm::Value*> parameters_;
  std::vector<Loop> loops_;
};

struct LoweredProgram {
  std::string entry_name;
  // Host only: the entry runs one thread (target::HostThreadEntry), because
  // the kernel synchronises its block; else it is the grid loop (HostEntry).
  bool per_thread_entry = false;
  uint64_t static_shared_bytes = 0;  // host: the bytes before the dynamic part
  // The kernel syncs its grid: it needs a cooperative launch (and on the GPU
  // its last parameter is the grid workspace).
  bool cooperative = false;
};

// Lowers every function reachable from the entry, and the entry: a
// PTX_Kernel holding the kernel's body (nvptx), or the host grid loop (or
// per-thread entry) calling it.
// Whether statements hold a raise or an assert, at any depth.
bool contains_raise(const std::vector<ir::NodePtr>& nodes);
// Whether `nodes` hold a while or for loop (host code polls the launch's abandon flag there).
bool contains_loop(const std::vector<ir::NodePtr>& nodes);
// The exception code the front end put at the end of a name (debug.zerodiv.N, reshape.N).
int64_t raise_code(std::string_view name);
// Host: fills ModuleLowering::block_syncing and tail_statements (synchronization.cpp).
void find_block_barriers(ModuleLowering& m,
                         const std::vector<const typing::TypedFunction*>& functions,
                         const typing::TypedFunction& entry);
// Host (barrier_fission.cpp): a split kernel's variables that each thread loop computes
// again; after find_block_barriers, why the kernel's barriers cannot split its block
// into thread loops, or "" when they can (the reason goes to CUDAJIT_DUMP=cpu).
std::vector<const ir::Node*> recomputed_variables(const typing::TypedFunction& kernel);
// Whether a split kernel's variable array keeps a complex number's parts apart, [2 x [N x T]]
// (FunctionLowering::make_slot).
bool split_parts(const llvm::AllocaInst* array);
// Whether the functions call warp functions (shuffles, votes, syncwarp...).
bool calls_warp_functions(const std::vector<const typing::TypedFunction*>& functions);
std::string split_refusal(const ModuleLowering& m,
                          const std::vector<const typing::TypedFunction*>& functions,
                          const typing::TypedFunction& entry);
// Host (lockstep_loops.cpp): the kernel's loops that threads may leave at different
// iterations and can run in lockstep, and the `if`s that hold them.
std::unordered_set<const ir::Node*> lockstep_statements(const typing::TypedFunction& entry);
// Host (lockstep_inlining.cpp): a copy of the kernel's module in which calls of device
// functions whose loop threads leave at different iterations are inlined where a lockstep
// loop may stand (none: nullopt); and whether the kernel typed again from it kept every
// inlined name's type and runs every inlined loop in lockstep (else compile it as written).
struct InlinedCalls {
  struct Call {
    const typing::TypedFunction* callee;  // of the program typed before inlining
    std::string suffix;                   // of the callee's names in the kernel
    const ir::Node* loop;                 // the inlined loop, in `module`
  };
  ir::Module module;
  std::vector<Call> calls;
};
std::optional<InlinedCalls> inline_lockstep_calls(const ir::Module& module,
                                                  const typing::TypedProgram& typed);
bool inlined_in_lockstep(const InlinedCalls& inlined, const typing::TypedProgram& retyped);
// debug=True's local (the front end's EXCEPTION_RECORD): where a raising thread records its
// exception and indices (exceptions.cpp).
inline constexpr const char* kExceptionRecord = "exception.record";
// Host, after find_block_barriers: fills ModuleLowering::grid_stride_loops (grid_stride.cpp).
void find_grid_stride_loops(ModuleLowering& m,
                            const std::vector<const typing::TypedFunction*>& functions,
                            const typing::TypedFunction& entry);
// Host (private_atomics.cpp): fills ModuleLowering::private_atomics; the entry's copies of
// those arrays for its run of `threads` threads (the parameters in `args` then point into
// them, and `copies_field` of the thread context says which were made), and their merge.
void find_private_atomics(ModuleLowering& m, const typing::TypedFunction& entry);
std::vector<PrivateCopy> open_private_copies(ModuleLowering& m, llvm::IRBuilder<>& b,
                                             llvm::Function* fn, std::vector<llvm::Value*>& args,
                                             llvm::Value* threads, llvm::Value* copies_field);
void close_private_copies(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Function* fn,
                          const std::vector<PrivateCopy>& copies);
// for (v = begin; v < end; ++v) body(v) at b's insertion point; its latch. One that `runs`
// (at least once) tests only at its end: LLVM would otherwise unswitch the loops around it
// on the test.
llvm::BranchInst* counted_loop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end,
                               const std::function<void(llvm::Value*)>& body, bool runs);
// Gives the loop whose latch is `latch` the loop property `hint` (llvm.loop.unroll.full...).
void set_loop_hint(llvm::BranchInst* latch, const char* hint);
// Host: marks the loop whose latch is `latch` as a thread loop (threadIdx.x): vectorised,
// but its scalar remainder not unrolled at run time (code and compile time for a loop of
// a few iterations).
// `lockstep`: a loop over a block's row in a lockstep `if` or loop (lockstep_loops.cpp): 16
// lanes wide, not interleaved, its tail masked, never unrolled.
void mark_thread_loop(llvm::BranchInst* latch, bool lockstep = false);
// Host: marks a loop around thread loops (blocks, threadIdx.y and .z, lockstep chunks and
// iterations) as never unrolled: LLVM could not, but would work out its trip count to try
// (a tenth of a lockstep kernel's optimisation time).
void mark_outer_loop(llvm::BranchInst* latch);
// Whether statements call the builtin `name`, at any depth.
bool calls_builtin(const std::vector<ir::NodePtr>& nodes, std::string_view name);

LoweredProgram lower_program(const typing::TypedProgram& program, llvm::Module& module,
                             TargetKind target, bool device_entry, const CompileOptions& options);

}  // namespace cudajit::lower
