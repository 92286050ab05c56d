// The DWARF description of kernel-language types (debug=True): what a
// debugger (cuda-gdb) needs to print a variable from the bytes of its slot,
// which hold the type's value form (ModuleLowering::value_type).
#pragma once

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugInfoMetadata.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cudajit/compiler/types.hpp"

namespace cudajit::lower {

class DebugTypes {
 public:
  explicit DebugTypes(llvm::DIBuilder& builder) : builder_(builder) {}
  DebugTypes(const DebugTypes&) = delete;
  DebugTypes& operator=(const DebugTypes&) = delete;

  // `t` in its value form; null for none (a function returning nothing).
  // - scalars: base types named as the kernel language spells them (int32,
  //   float64, bool with DW_ATE_boolean; complex64 a structure {real, imag});
  // - an array: a structure {data: pointer to the elements, shape, strides:
  //   int64[ndim]}, named by the type (array(float32, 1d, C));
  // - a tuple: a structure of its items (members 0, 1 ... or a named tuple's
  //   fields); an optional number: {value, valid};
  // - a record (its address) and a CPointer: a pointer to the record's
  //   structure (fields at their offsets, nested arrays and records) or to the
  //   scalar.
  llvm::DIType* get(const Type& t);

  // A slot that holds a value of one of `types` in turn (a Python variable rebound to other
  // types): a union of members named "_" and the type (_int64, _float64, _bool; Numba's
  // names), sorted by name, the types repeated once; the one type itself when all are alike.
  // Null when a type has no description.
  llvm::DIType* union_of(const std::vector<Type>& types);

  // Bytes and alignment of `t`'s value form, as LLVM lays it out (natural
  // alignment, a bool in one byte).
  struct Extent {
    uint64_t size = 0;
    uint64_t align = 1;
  };
  static Extent extent(const Type& t);

 private:
  llvm::DIType* scalar(Scalar s);
  llvm::DIType* array(const Type& t);
  llvm::DIType* tuple(const Type& t);
  llvm::DIType* optional(const Type& t);
  llvm::DIType* record(const std::shared_ptr<const RecordLayout>& layout);
  llvm::DIType* field(const RecordField& f);
  llvm::DIType* int64_array(int count);
  llvm::DIType* pointer_to(llvm::DIType* pointee);
  llvm::DIDerivedType* member(const std::string& name, llvm::DIType* type, uint64_t size_bits,
                              uint64_t offset_bits);
  llvm::DICompositeType* structure(const std::string& name, uint64_t size_bits, uint32_t align_bits,
                                   llvm::ArrayRef<llvm::Metadata*> members);

  llvm::DIBuilder& builder_;
  std::map<std::string, llvm::DIType*> made_;  // by the type's spelling
};

}  // namespace cudajit::lower
