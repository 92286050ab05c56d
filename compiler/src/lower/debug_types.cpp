#include "debug_types.hpp"

#include <llvm/BinaryFormat/Dwarf.h>

#include <algorithm>
#include <vector>

namespace cudajit::lower {

namespace {

constexpr uint64_t kBits = 8;
constexpr uint64_t kPointerBytes = 8;

uint64_t align_to(uint64_t offset, uint64_t align) { return (offset + align - 1) / align * align; }

unsigned encoding(Scalar s) {
  if (s == Scalar::Bool) return llvm::dwarf::DW_ATE_boolean;
  if (is_integer(s))
    return is_signed(s) ? llvm::dwarf::DW_ATE_signed : llvm::dwarf::DW_ATE_unsigned;
  return llvm::dwarf::DW_ATE_float;  // float16, bfloat16, float32, float64
}

}  // namespace

DebugTypes::Extent DebugTypes::extent(const Type& t) {
  switch (t.kind()) {
    case Type::Kind::None:
      return {0, 1};
    case Type::Kind::Scalar: {
      const auto size = static_cast<uint64_t>(byte_size(t.scalar()));
      return {size, static_cast<uint64_t>(alignment(t.scalar()))};
    }
    case Type::Kind::Array:  // {ptr, [N x i64], [N x i64]}
      return {kPointerBytes + 16 * static_cast<uint64_t>(t.ndim()), 8};
    case Type::Kind::Record:
    case Type::Kind::Pointer:
      return {kPointerBytes, kPointerBytes};
    case Type::Kind::Optional:
      return extent(Type::tuple({t.optional_value(), Type::scalar(Scalar::Bool)}));
    case Type::Kind::Tuple: {
      Extent whole{0, 1};
      for (const Type& item : t.elements()) {
        const Extent e = extent(item);
        whole.size = align_to(whole.size, e.align) + e.size;
        whole.align = std::max(whole.align, e.align);
      }
      whole.size = align_to(whole.size, whole.align);
      return whole;
    }
  }
  return {0, 1};
}

llvm::DIType* DebugTypes::get(const Type& t) {
  if (t.is_none()) return nullptr;
  const std::string key = t.str();
  if (auto found = made_.find(key); found != made_.end()) return found->second;
  llvm::DIType* made = nullptr;
  switch (t.kind()) {
    case Type::Kind::None:
      return nullptr;
    case Type::Kind::Scalar:
      made = scalar(t.scalar());
      break;
    case Type::Kind::Array:
      made = array(t);
      break;
    case Type::Kind::Tuple:
      made = tuple(t);
      break;
    case Type::Kind::Optional:
      made = optional(t);
      break;
    case Type::Kind::Record:
      made = pointer_to(record(t.record_layout()));
      break;
    case Type::Kind::Pointer:
      made = pointer_to(scalar(t.dtype()));
      break;
  }
  made_[key] = made;
  return made;
}

namespace {

// A type's spelling as a member name a debugger's expressions can use: _array_int32_1d_C.
std::string member_name(const std::string& spelling) {
  std::string name = "_";
  for (char c : spelling) {
    const bool word =
        c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (word)
      name += c;
    else if (name.back() != '_')
      name += '_';
  }
  while (name.size() > 1 && name.back() == '_') name.pop_back();
  return name;
}

}  // namespace

llvm::DIType* DebugTypes::union_of(const std::vector<Type>& types) {
  std::map<std::string, Type> members;  // by member name: sorted, each type once
  for (const Type& t : types) members.emplace(member_name(t.str()), t);
  if (members.size() == 1) return get(members.begin()->second);
  std::string key = "union";
  for (const auto& [name, t] : members) key += " " + t.str();
  if (auto found = made_.find(key); found != made_.end()) return found->second;
  Extent whole{0, 1};
  std::vector<llvm::Metadata*> elements;
  std::string spelled;
  for (const auto& [name, t] : members) {
    llvm::DIType* described = get(t);
    if (described == nullptr) return nullptr;
    const Extent e = extent(t);
    whole.size = std::max(whole.size, e.size);
    whole.align = std::max(whole.align, e.align);
    elements.push_back(member(name, described, e.size * kBits, 0));
    spelled += (spelled.empty() ? "" : ", ") + t.str();
  }
  whole.size = align_to(whole.size, whole.align);
  llvm::DIType* made =
      builder_.createUnionType(nullptr, "union(" + spelled + ")", nullptr, 0, whole.size * kBits,
                               static_cast<uint32_t>(whole.align * kBits), llvm::DINode::FlagZero,
                               builder_.getOrCreateArray(elements));
  made_[key] = made;
  return made;
}

llvm::DIType* DebugTypes::scalar(Scalar s) {
  const std::string name(scalar_name(s));
  if (auto found = made_.find(name); found != made_.end()) return found->second;
  llvm::DIType* made = nullptr;
  if (is_complex(s)) {
    llvm::DIType* part = scalar(complex_part(s));
    const uint64_t part_bits = static_cast<uint64_t>(byte_size(complex_part(s))) * kBits;
    made =
        structure(name, 2 * part_bits, static_cast<uint32_t>(part_bits),
                  {member("real", part, part_bits, 0), member("imag", part, part_bits, part_bits)});
  } else {
    made = builder_.createBasicType(name, static_cast<uint64_t>(byte_size(s)) * kBits, encoding(s));
  }
  made_[name] = made;
  return made;
}

llvm::DIType* DebugTypes::array(const Type& t) {
  llvm::DIType* element = t.is_record_array() ? record(t.record_layout()) : scalar(t.dtype());
  const auto ndim = static_cast<uint64_t>(t.ndim());
  const uint64_t dims_bits = ndim * 64;
  std::vector<llvm::Metadata*> members{
      member("data", pointer_to(element), kPointerBytes * kBits, 0)};
  if (ndim > 0) {
    llvm::DIType* dims = int64_array(t.ndim());
    members.push_back(member("shape", dims, dims_bits, kPointerBytes * kBits));
    members.push_back(member("strides", dims, dims_bits, kPointerBytes * kBits + dims_bits));
  }
  return structure(t.str(), extent(t).size * kBits, 64, members);
}

llvm::DIType* DebugTypes::tuple(const Type& t) {
  std::vector<llvm::Metadata*> members;
  uint64_t offset = 0;
  for (size_t i = 0; i < t.elements().size(); ++i) {
    const Type& item = t.elements()[i];
    const Extent e = extent(item);
    offset = align_to(offset, e.align);
    const std::string name = t.fields().empty() ? std::to_string(i) : t.fields()[i];
    members.push_back(member(name, get(item), e.size * kBits, offset * kBits));
    offset += e.size;
  }
  const Extent whole = extent(t);
  return structure(t.str(), whole.size * kBits, static_cast<uint32_t>(whole.align * kBits),
                   members);
}

llvm::DIType* DebugTypes::optional(const Type& t) {
  const Type& value = t.optional_value();
  const Extent v = extent(value);
  const Extent whole = extent(t);
  llvm::DIType* valid = scalar(Scalar::Bool);
  return structure(t.str(), whole.size * kBits, static_cast<uint32_t>(whole.align * kBits),
                   {member("value", get(value), v.size * kBits, 0),
                    member("valid", valid, kBits, v.size * kBits)});
}

// A record's fields at their offsets, named as the record type is spelled.
llvm::DIType* DebugTypes::record(const std::shared_ptr<const RecordLayout>& record_layout) {
  const RecordLayout& layout = *record_layout;
  const std::string name = Type::record(record_layout).str();
  const std::string key = "struct " + name;
  if (auto found = made_.find(key); found != made_.end()) return found->second;
  std::vector<llvm::Metadata*> members;
  for (const RecordField& f : layout.fields) {
    uint64_t bytes = f.record ? static_cast<uint64_t>(f.record->size)
                              : static_cast<uint64_t>(byte_size(f.dtype));
    for (int64_t n : f.shape) bytes *= static_cast<uint64_t>(n);
    members.push_back(
        member(f.name, field(f), bytes * kBits, static_cast<uint64_t>(f.offset) * kBits));
  }
  llvm::DIType* made = structure(name, static_cast<uint64_t>(layout.size) * kBits,
                                 static_cast<uint32_t>(layout.alignment()) * kBits, members);
  made_[key] = made;
  return made;
}

// A field: its scalar, its nested record, or a C array of either (shape).
llvm::DIType* DebugTypes::field(const RecordField& f) {
  llvm::DIType* element = f.record ? record(f.record) : scalar(f.dtype);
  if (f.shape.empty()) return element;
  uint64_t count = 1;
  std::vector<llvm::Metadata*> ranges;
  for (int64_t extent : f.shape) {
    ranges.push_back(builder_.getOrCreateSubrange(0, extent));
    count *= static_cast<uint64_t>(extent);
  }
  const uint64_t element_bits = f.record ? static_cast<uint64_t>(f.record->size) * kBits
                                         : static_cast<uint64_t>(byte_size(f.dtype)) * kBits;
  return builder_.createArrayType(count * element_bits, 0, element,
                                  builder_.getOrCreateArray(ranges));
}

llvm::DIType* DebugTypes::int64_array(int count) {
  const std::string key = "int64[" + std::to_string(count) + "]";
  if (auto found = made_.find(key); found != made_.end()) return found->second;
  llvm::DIType* made =
      builder_.createArrayType(static_cast<uint64_t>(count) * 64, 64, scalar(Scalar::Int64),
                               builder_.getOrCreateArray({builder_.getOrCreateSubrange(0, count)}));
  made_[key] = made;
  return made;
}

// A generic pointer (no DWARF address space): cudajit's arrays hold generic
// addresses, shared and local memory included, so cuda-gdb reads them as such.
llvm::DIType* DebugTypes::pointer_to(llvm::DIType* pointee) {
  return builder_.createPointerType(pointee, kPointerBytes * kBits);
}

llvm::DIDerivedType* DebugTypes::member(const std::string& name, llvm::DIType* type,
                                        uint64_t size_bits, uint64_t offset_bits) {
  return builder_.createMemberType(nullptr, name, nullptr, 0, size_bits, 0, offset_bits,
                                   llvm::DINode::FlagZero, type);
}

llvm::DICompositeType* DebugTypes::structure(const std::string& name, uint64_t size_bits,
                                             uint32_t align_bits,
                                             llvm::ArrayRef<llvm::Metadata*> members) {
  return builder_.createStructType(nullptr, name, nullptr, 0, size_bits, align_bits,
                                   llvm::DINode::FlagZero, nullptr,
                                   builder_.getOrCreateArray(members));
}

}  // namespace cudajit::lower
