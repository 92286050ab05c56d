// atom and red on global, shared and generic addresses. Blocks run on several
// host threads, so every update is a host atomic (a compare-and-swap loop on the
// location's bits); lanes of a warp update one after the other, in lane order.
#include <atomic>
#include <cmath>

#include "../checks.hpp"
#include "../decode_context.hpp"
#include "../profile.hpp"
#include "../warp.hpp"
#include "float_bits.hpp"
#include "memory_access.hpp"

namespace cudajit::sim {

namespace {

constexpr int kBase = 5;  // op[5]: address base; op[0] destination, op[1] b, op[2] c

enum Op : uint8_t { kAdd, kMin, kMax, kInc, kDec, kAnd, kOr, kXor, kExch, kCas };
enum Where : uint8_t { kGeneric, kGlobal, kShared };

template <class T>
using Bits = std::conditional_t<sizeof(T) == 8, uint64_t,
                                std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>>;

// Subnormal f32 inputs and results of atom.add.f32 on global memory flush to zero (PTX ISA).
inline float flush(float v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
}

template <Op op, class T>
inline T apply(T old, T b, T c, bool global) {
  (void)c, (void)global;
  if constexpr (op == kAdd) {
    if constexpr (std::is_same_v<T, Half>) {  // .noftz: subnormals kept; rounded once
      return round_to_half((long double)half_to_float(old) + half_to_float(b), kNearest);
    } else if constexpr (std::is_same_v<T, float>) {
      if (global) return flush(flush(old) + flush(b));
      return old + b;
    } else if constexpr (std::is_floating_point_v<T>) {
      return old + b;
    } else {
      return T(Bits<T>(old) + Bits<T>(b));  // wraps
    }
  } else if constexpr (std::is_same_v<T, Half>) {
    return old;  // only add takes f16
  } else if constexpr (op == kMin) {
    return b < old ? b : old;
  } else if constexpr (op == kMax) {
    return b > old ? b : old;
  } else if constexpr (op == kInc) {
    return old >= b ? T(0) : T(old + 1);
  } else if constexpr (op == kDec) {
    return (old == 0 || old > b) ? b : T(old - 1);
  } else if constexpr (op == kAnd) {
    return old & b;
  } else if constexpr (op == kOr) {
    return old | b;
  } else if constexpr (op == kXor) {
    return old ^ b;
  } else if constexpr (op == kExch) {
    return b;
  } else {
    return old == b ? c : old;  // kCas: compares bits (T is unsigned for cas)
  }
}

template <Where where>
inline uint8_t* atomic_address(Warp& warp, const Inst& inst, int lane, uint64_t size,
                               bool& global) {
  uint64_t address = warp.reg(inst.op[kBase])[lane] + uint64_t(inst.offset);
  if constexpr (where == kGlobal) {
    global = true;
    return global_address(warp, inst, lane, address, size);
  } else if constexpr (where == kShared) {
    global = false;
    return shared_address(warp, inst, lane, address, size);
  } else {
    uint64_t window = address & kWindowMask;
    global = window == 0;
    if (window == kLocalWindow)
      warp.fault(Fault::IllegalAddress, inst, lane, "atomic operation on local memory");
    return generic_address(warp, inst, lane, address, size);
  }
}

template <Where where, Op op, class T, bool returns>
void run_atomic(Warp& warp, const Inst& inst, uint32_t mask) {
  using U = Bits<T>;
  uint64_t* d = returns ? warp.reg(inst.op[0]) : nullptr;
  const uint64_t* b = warp.reg(inst.op[1]);
  const uint64_t* c = inst.op[2] == kNoSlot ? nullptr : warp.reg(inst.op[2]);
  if (warp.profiled && mask != 0) [[unlikely]]
    profile_access(warp, inst, mask,
                   where == kGlobal   ? ProfiledSpace::kGlobal
                   : where == kShared ? ProfiledSpace::kShared
                                      : ProfiledSpace::kGeneric,
                   sizeof(T), ProfiledAccess::kAtomic);
  for_lanes(mask, [&](int lane) {
    bool global = false;
    U* p = reinterpret_cast<U*>(atomic_address<where>(warp, inst, lane, sizeof(T), global));
    std::atomic_ref<U> ref(*p);
    T bv = get<T>(b, lane), cv = c ? get<T>(c, lane) : T{};
    U old_bits = ref.load(std::memory_order_relaxed);
    for (;;) {
      T old;
      std::memcpy(&old, &old_bits, sizeof(T));
      T next = apply<op, T>(old, bv, cv, global);
      U next_bits;
      std::memcpy(&next_bits, &next, sizeof(T));
      if (ref.compare_exchange_weak(old_bits, next_bits, std::memory_order_seq_cst)) break;
    }
    if constexpr (returns) {
      T old;
      std::memcpy(&old, &old_bits, sizeof(T));
      put<T>(d, lane, old);
    }
  });
}

template <Where where, Op op, bool returns>
Handler by_type(const std::string& type) {
  if constexpr (op == kAdd) {
    if (type == "f16") return run_atomic<where, op, Half, returns>;
    if (type == "f32") return run_atomic<where, op, float, returns>;
    if (type == "f64") return run_atomic<where, op, double, returns>;
  }
  if constexpr (op == kMin || op == kMax || op == kAdd) {
    if (type == "s32") return run_atomic<where, op, int32_t, returns>;
    if (type == "s64") return run_atomic<where, op, int64_t, returns>;
  }
  if constexpr (op == kAnd || op == kOr || op == kXor || op == kExch || op == kCas) {
    if (type == "b32") return run_atomic<where, op, uint32_t, returns>;
    if (type == "b64") return run_atomic<where, op, uint64_t, returns>;
  }
  if constexpr (op != kAnd && op != kOr && op != kXor) {
    if (type == "u32") return run_atomic<where, op, uint32_t, returns>;
    if constexpr (op != kInc && op != kDec)
      if (type == "u64") return run_atomic<where, op, uint64_t, returns>;
  }
  return nullptr;
}

template <Where where, bool returns>
Handler by_op(Op op, const std::string& type) {
  switch (op) {
    case kAdd:
      return by_type<where, kAdd, returns>(type);
    case kMin:
      return by_type<where, kMin, returns>(type);
    case kMax:
      return by_type<where, kMax, returns>(type);
    case kInc:
      return by_type<where, kInc, returns>(type);
    case kDec:
      return by_type<where, kDec, returns>(type);
    case kAnd:
      return by_type<where, kAnd, returns>(type);
    case kOr:
      return by_type<where, kOr, returns>(type);
    case kXor:
      return by_type<where, kXor, returns>(type);
    case kExch:
      return by_type<where, kExch, returns>(type);
    case kCas:
      return by_type<where, kCas, returns>(type);
  }
  return nullptr;
}

void decode_atomic(DecodeContext& c, Inst& inst, bool returns) {
  static const std::pair<const char*, Op> ops[] = {
      {"add", kAdd}, {"min", kMin}, {"max", kMax}, {"inc", kInc},   {"dec", kDec},
      {"and", kAnd}, {"or", kOr},   {"xor", kXor}, {"exch", kExch}, {"cas", kCas}};
  static const char* hints[] = {"relaxed", "acquire", "release", "acq_rel", "cta",  "gpu",
                                "sys",     "cluster", "global",  "shared",  "noftz"};
  int found = 0;
  Op op = kAdd;
  for (const auto& m : c.instruction().modifiers) {
    bool known = ptx::type_size(m) != 0;
    for (auto [name, o] : ops)
      if (m == name) op = o, known = true, ++found;
    for (const char* h : hints) known = known || m == h;
    if (!known) c.unsupported();
  }
  if (found != 1) c.unsupported();
  if (!returns && op == kCas) c.error("red has no .cas");
  std::string type = c.type();
  // f16 add exists only as .noftz (sm_70); .noftz belongs to nothing else.
  if ((type == "f16") != c.has("noftz")) c.unsupported();
  size_t values = op == kCas ? 2 : 1;
  size_t first = returns ? 1 : 0;
  if (c.operand_count() != first + 1 + values)
    c.error("expects " + std::to_string(first + 1 + values) + " operands");
  if (returns) inst.op[0] = c.reg(c.operand(0));
  c.address(c.operand(first), c.has("shared") ? ptx::Space::Shared : ptx::Space::Global, inst,
            kBase);
  if (inst.op[kBase] == kNoSlot) c.error("an atomic operation on a kernel parameter");
  inst.op[1] = c.value(c.operand(first + 1), type == "f16" ? "b16" : type);
  if (op == kCas) inst.op[2] = c.value(c.operand(first + 2), type);
  Where where = c.has("global") ? kGlobal : c.has("shared") ? kShared : kGeneric;
  Handler h = nullptr;
  switch (where) {
    case kGeneric:
      h = returns ? by_op<kGeneric, true>(op, type) : by_op<kGeneric, false>(op, type);
      break;
    case kGlobal:
      h = returns ? by_op<kGlobal, true>(op, type) : by_op<kGlobal, false>(op, type);
      break;
    case kShared:
      h = returns ? by_op<kShared, true>(op, type) : by_op<kShared, false>(op, type);
      break;
  }
  if (!h) c.unsupported();
  inst.run = h;
  inst.size = uint8_t(ptx::type_size(type));
  inst.access = uint8_t((where == kGlobal   ? kAccessGlobal
                         : where == kShared ? kAccessShared
                                            : kAccessGeneric) |
                        kAccessAtomic);
}

void decode_atom(DecodeContext& c, Inst& inst) { decode_atomic(c, inst, true); }
void decode_red(DecodeContext& c, Inst& inst) { decode_atomic(c, inst, false); }

}  // namespace

void register_atomic_ops(OpcodeTable& table) {
  table["atom"] = decode_atom;
  table["red"] = decode_red;
}

}  // namespace cudajit::sim
