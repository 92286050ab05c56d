// ld, st, cvta, prefetch: every access checked against its space. Global
// accesses must lie inside a live range of GlobalMemory, shared ones inside the
// block's shared memory, local ones inside the thread's local window; all must
// be naturally aligned (as the hardware requires).
#include <cinttypes>
#include <cstdio>

#include "../checks.hpp"
#include "../decode_context.hpp"
#include "../profile.hpp"
#include "../warp.hpp"
#include "memory_access.hpp"

namespace cudajit::sim {

namespace {

using ptx::Space;

// op[0..count) hold the values, op[5] the address's base (kNoSlot: a kernel parameter).
constexpr int kBase = 5;

enum Kind : uint8_t { kGeneric, kGlobal, kShared, kLocal, kKernelParam, kFrameParam };

template <Kind kind>
inline uint8_t* locate(Warp& warp, const Inst& inst, int lane, uint64_t size, bool write) {
  if constexpr (kind == kKernelParam) {
    const Launch& launch = *warp.launch;
    uint64_t offset = uint64_t(inst.offset);
    if (write) warp.fault(Fault::IllegalInstruction, inst, lane, "store to a kernel parameter");
    if (offset + size > launch.params.size())
      warp.fault(Fault::IllegalAddress, inst, lane, "read past the kernel's parameters");
    return const_cast<uint8_t*>(launch.params.data()) + offset;
  } else if constexpr (kind == kFrameParam) {
    Frame& frame = warp.frames.back();
    uint64_t offset = warp.reg(inst.op[kBase])[lane] + uint64_t(inst.offset);
    uint64_t stride = frame.function->param_bytes;
    if (offset + size > stride)
      warp.fault(Fault::IllegalAddress, inst, lane, "access past the function's .param area");
    return frame.params.data() + lane * stride + offset;
  } else {
    uint64_t address = warp.reg(inst.op[kBase])[lane] + uint64_t(inst.offset);
    if constexpr (kind == kGlobal) return global_address(warp, inst, lane, address, size);
    if constexpr (kind == kShared) return shared_address(warp, inst, lane, address, size);
    if constexpr (kind == kLocal) return local_address(warp, inst, lane, address, size);
    return generic_address(warp, inst, lane, address, size);
  }
}

// exec/profile.hpp counts a warp's accesses when the launch asks; .param and .const are not
// memory traffic it judges (inst.aux marks .const, which runs as kGlobal).
constexpr uint8_t kConstSpace = 1;

template <Kind kind>
inline void profile(Warp& warp, const Inst& inst, uint32_t mask, uint32_t size,
                    ProfiledAccess access) {
  if constexpr (kind != kKernelParam && kind != kFrameParam) {
    if (!warp.profiled || mask == 0 || inst.aux == kConstSpace) [[likely]]
      return;
    constexpr ProfiledSpace space = kind == kGlobal   ? ProfiledSpace::kGlobal
                                    : kind == kShared ? ProfiledSpace::kShared
                                    : kind == kLocal  ? ProfiledSpace::kLocal
                                                      : ProfiledSpace::kGeneric;
    profile_access(warp, inst, mask, space, size, access);
  }
}

// Loaded values are extended to the register's 64 bits: signed types by sign.
template <class T>
inline uint64_t widen(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  if constexpr (std::is_signed_v<T> && std::is_integral_v<T>)
    return uint64_t(int64_t(value));
  else {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
  }
}

template <Kind kind, class T, int count>
void run_ld(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* dst[count];
  for (int i = 0; i < count; ++i) dst[i] = inst.op[i] == kNoSlot ? nullptr : warp.reg(inst.op[i]);
  profile<kind>(warp, inst, mask, sizeof(T) * count, ProfiledAccess::kLoad);
  for_lanes(mask, [&](int lane) {
    const uint8_t* p = locate<kind>(warp, inst, lane, sizeof(T) * count, false);
    for (int i = 0; i < count; ++i)
      if (dst[i]) dst[i][lane] = widen<T>(p + i * sizeof(T));
  });
}

template <Kind kind, class T, int count>
void run_st(Warp& warp, const Inst& inst, uint32_t mask) {
  const uint64_t* src[count];
  for (int i = 0; i < count; ++i) src[i] = warp.reg(inst.op[i]);
  profile<kind>(warp, inst, mask, sizeof(T) * count, ProfiledAccess::kStore);
  for_lanes(mask, [&](int lane) {
    uint8_t* p = locate<kind>(warp, inst, lane, sizeof(T) * count, true);
    for (int i = 0; i < count; ++i) {
      uint64_t bits = src[i][lane];
      std::memcpy(p + i * sizeof(T), &bits, sizeof(T));
    }
  });
}

template <template <Kind, class, int> class Op, Kind kind, class T>
Handler by_count(int count) {
  switch (count) {
    case 1:
      return Op<kind, T, 1>::run;
    case 2:
      return Op<kind, T, 2>::run;
    case 4:
      return Op<kind, T, 4>::run;
  }
  return nullptr;
}

template <template <Kind, class, int> class Op, Kind kind>
Handler by_type(const std::string& type, int count) {
  if (type == "s8") return by_count<Op, kind, int8_t>(count);
  if (type == "u8" || type == "b8") return by_count<Op, kind, uint8_t>(count);
  if (type == "s16") return by_count<Op, kind, int16_t>(count);
  if (type == "u16" || type == "b16" || type == "f16" || type == "bf16")
    return by_count<Op, kind, uint16_t>(count);
  if (type == "s32") return by_count<Op, kind, int32_t>(count);
  if (type == "u32" || type == "b32" || type == "f32" || type == "f16x2" || type == "bf16x2")
    return by_count<Op, kind, uint32_t>(count);
  if (type == "s64") return by_count<Op, kind, int64_t>(count);
  if (type == "u64" || type == "b64" || type == "f64") return by_count<Op, kind, uint64_t>(count);
  return nullptr;
}

template <template <Kind, class, int> class Op>
Handler by_kind(Kind kind, const std::string& type, int count) {
  switch (kind) {
    case kGeneric:
      return by_type<Op, kGeneric>(type, count);
    case kGlobal:
      return by_type<Op, kGlobal>(type, count);
    case kShared:
      return by_type<Op, kShared>(type, count);
    case kLocal:
      return by_type<Op, kLocal>(type, count);
    case kKernelParam:
      return by_type<Op, kKernelParam>(type, count);
    case kFrameParam:
      return by_type<Op, kFrameParam>(type, count);
  }
  return nullptr;
}

template <Kind kind, class T, int count>
struct Load {
  static void run(Warp& w, const Inst& i, uint32_t m) { run_ld<kind, T, count>(w, i, m); }
};
template <Kind kind, class T, int count>
struct Store {
  static void run(Warp& w, const Inst& i, uint32_t m) { run_st<kind, T, count>(w, i, m); }
};

Space space_of(const DecodeContext& c) {
  if (c.has("global")) return Space::Global;
  if (c.has("shared")) return Space::Shared;
  if (c.has("local")) return Space::Local;
  if (c.has("param")) return Space::Param;
  if (c.has("const")) return Space::Const;
  return Space::Generic;
}

// Checks the modifiers an ld/st may carry; returns the vector width.
int access_modifiers(const DecodeContext& c) {
  static const char* known[] = {"global",  "shared",  "local",   "param", "const", "volatile",
                                "relaxed", "acquire", "release", "weak",  "cta",   "gpu",
                                "sys",     "nc",      "ca",      "cg",    "cs",    "lu",
                                "cv",      "wb",      "wt",      "v2",    "v4",    "cluster"};
  int count = 1;
  for (const auto& m : c.instruction().modifiers) {
    if (ptx::type_size(m) != 0) continue;
    bool ok = false;
    for (const char* k : known) ok = ok || m == k;
    if (!ok) c.unsupported();
    if (m == "v2") count = 2;
    if (m == "v4") count = 4;
  }
  return count;
}

Kind decode_address(DecodeContext& c, Inst& inst, const ptx::Operand& address, Space space) {
  Space symbol_space = c.address(address, space, inst, kBase);
  if (space == Space::Param) {
    if (inst.op[kBase] == kNoSlot) return kKernelParam;
    if (symbol_space != Space::Param) c.error("a .param access through a register");
    return kFrameParam;
  }
  if (inst.op[kBase] == kNoSlot) c.error("a kernel parameter outside .param space");
  switch (space) {
    case Space::Global:
    case Space::Const:
      return kGlobal;
    case Space::Shared:
      return kShared;
    case Space::Local:
      return kLocal;
    default:
      break;
  }
  // A generic access to a symbol: its generic address.
  if (symbol_space == Space::Shared) return kShared;
  if (symbol_space == Space::Local) return kLocal;
  if (symbol_space == Space::Param) c.error("a generic access to a .param symbol");
  return kGeneric;
}

void value_slots(DecodeContext& c, Inst& inst, const ptx::Operand& values, int count,
                 const std::string& type, bool destination) {
  if (count == 1) {
    inst.op[0] = destination ? c.reg(values) : c.value(values, type);
    return;
  }
  if (values.kind != ptx::Operand::Kind::Vector || int(values.elements.size()) != count)
    c.error("expects a vector of " + std::to_string(count) + " registers");
  for (int i = 0; i < count; ++i) {
    const ptx::Operand& e = values.elements[i];
    if (destination && e.kind == ptx::Operand::Kind::Sink) continue;
    inst.op[i] = destination ? c.reg(e) : c.value(e, type);
  }
}

// What the checks (exec/checks.hpp) look at: global, shared and generic accesses.
uint8_t checked_access(Kind kind, uint8_t mode) {
  switch (kind) {
    case kGeneric:
      return kAccessGeneric | mode;
    case kGlobal:
      return kAccessGlobal | mode;
    case kShared:
      return kAccessShared | mode;
    default:
      return 0;
  }
}

void decode_ld(DecodeContext& c, Inst& inst) {
  int count = access_modifiers(c);
  std::string type = c.type();
  if (c.operand_count() != 2) c.error("expects a destination and an address");
  value_slots(c, inst, c.operand(0), count, type, true);
  Kind kind = decode_address(c, inst, c.operand(1), space_of(c));
  if (space_of(c) == Space::Const) inst.aux = kConstSpace;
  inst.run = by_kind<Load>(kind, type, count);
  inst.access = checked_access(kind, kAccessRead);
  inst.size = uint8_t(ptx::type_size(type) * count);
  inst.count = uint8_t(count);
}

void decode_st(DecodeContext& c, Inst& inst) {
  int count = access_modifiers(c);
  std::string type = c.type();
  if (c.operand_count() != 2) c.error("expects an address and a value");
  if (space_of(c) == Space::Const) c.error("stores to .const space are not allowed");
  value_slots(c, inst, c.operand(1), count, type, false);
  Kind kind = decode_address(c, inst, c.operand(0), space_of(c));
  if (kind == kKernelParam) c.error("stores to kernel parameters are not allowed");
  inst.run = by_kind<Store>(kind, type, count);
  inst.access = checked_access(kind, kAccessWrite);
  inst.size = uint8_t(ptx::type_size(type) * count);
  inst.count = uint8_t(count);
}

// cvta{.to}.space.size d, a: between a space's addresses and generic ones.
template <uint64_t window, bool to_space, bool narrow>
void run_cvta(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  for_lanes(mask, [&](int lane) {
    uint64_t value = to_space ? a[lane] - window : a[lane] + window;
    d[lane] = narrow ? uint32_t(value) : value;
  });
}

void decode_cvta(DecodeContext& c, Inst& inst) {
  bool to = c.has("to");
  std::string type = c.type();
  if (type != "u64" && type != "u32") c.unsupported();
  bool narrow = type == "u32";
  inst.op[0] = c.reg(c.operand(0));
  inst.op[1] = c.value(c.operand(1), type);
  Space space = space_of(c);
  if (space == Space::Global || space == Space::Const)
    inst.run = narrow ? run_cvta<0, false, true> : run_cvta<0, false, false>;
  else if (space == Space::Shared)
    inst.run =
        to ? (narrow ? run_cvta<kSharedWindow, true, true> : run_cvta<kSharedWindow, true, false>)
           : (narrow ? run_cvta<kSharedWindow, false, true>
                     : run_cvta<kSharedWindow, false, false>);
  else if (space == Space::Local)
    inst.run =
        to ? (narrow ? run_cvta<kLocalWindow, true, true> : run_cvta<kLocalWindow, true, false>)
           : (narrow ? run_cvta<kLocalWindow, false, true> : run_cvta<kLocalWindow, false, false>);
  else
    c.unsupported();
}

// isspacep.space p, a
template <uint64_t window>
void run_isspacep(Warp& warp, const Inst& inst, uint32_t mask) {
  uint64_t* d = warp.reg(inst.op[0]);
  const uint64_t* a = warp.reg(inst.op[1]);
  for_lanes(mask, [&](int lane) { d[lane] = (a[lane] & kWindowMask) == window; });
}

void decode_isspacep(DecodeContext& c, Inst& inst) {
  inst.op[0] = c.reg(c.operand(0));
  inst.op[1] = c.value(c.operand(1), "u64");
  Space space = space_of(c);
  if (c.has("shared::cluster")) {  // the cluster is the block (no clusters of more)
    c.require(90, 7, 8);
    inst.run = run_isspacep<kSharedWindow>;
  } else if (space == Space::Global)
    inst.run = run_isspacep<0>;
  else if (space == Space::Shared)
    inst.run = run_isspacep<kSharedWindow>;
  else if (space == Space::Local)
    inst.run = run_isspacep<kLocalWindow>;
  else
    c.unsupported();
}

void run_nothing(Warp&, const Inst&, uint32_t) {}
void decode_prefetch(DecodeContext&, Inst& inst) { inst.run = run_nothing; }

}  // namespace

void register_memory_ops(OpcodeTable& table) {
  table["ld"] = decode_ld;
  table["ldu"] = decode_ld;
  table["st"] = decode_st;
  table["cvta"] = decode_cvta;
  table["isspacep"] = decode_isspacep;
  table["prefetch"] = decode_prefetch;
  table["prefetchu"] = decode_prefetch;
}

}  // namespace cudajit::sim
