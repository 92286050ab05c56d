// The CUDA Array Interface, versions 0 to 3 (../shared/spec/cuda-array-interface-*):
// every rule about the values of a __cuda_array_interface__ dict.
#include <string>

#include "cudajit/runtime/interop.hpp"

namespace cudajit::runtime {

namespace {

constexpr std::string_view kSource = "__cuda_array_interface__";
constexpr std::string_view kDescrContext = "__cuda_array_interface__ descr";
constexpr std::string_view kTypestrContext = "__cuda_array_interface__ typestr";

InteropError cai_error(const std::string& text) {
  return InteropError(std::string(kSource) + ": " + text);
}

std::string descr_text(const std::vector<CaiDescrField>& descr) {
  std::string text = "[";
  for (size_t i = 0; i < descr.size(); ++i) {
    const CaiDescrField& field = descr[i];
    text += (i ? ", ('" : "('") + field.name + "', ";
    text += field.typestr ? "'" + *field.typestr + "'" : std::string("<nested>");
    text += field.has_shape ? ", <shape>)" : ")";
  }
  return text + "]";
}

// descr describes the same type as typestr, or more (a structure): a single
// unnamed-or-named field of the typestr's type is the only form a scalar array has.
void check_descr(const std::vector<CaiDescrField>& descr, std::string_view typestr, Scalar dtype) {
  // Messages only: the success path builds no strings (it runs at every launch).
  auto given = [&] { return descr_text(descr); };
  if (descr.empty()) {
    throw cai_error("descr is an empty list; expected [('', '" + std::string(typestr) + "')]");
  }
  if (descr.size() > 1 || !descr[0].typestr || descr[0].has_shape) {
    throw InteropTypeError(std::string(kSource) + ": descr " + given() +
                           " describes a structured dtype; structured dtypes are not supported "
                           "(expected [('', '" +
                           std::string(typestr) + "')])");
  }
  const Scalar field = detail::parse_typestr_in(*descr[0].typestr, kDescrContext);
  if (field != dtype) {
    throw cai_error("descr " + given() + " does not match typestr '" + std::string(typestr) +
                    "'; expected [('', '" + std::string(typestr) + "')]");
  }
}

// NumPy has no bfloat16: JAX and ml_dtypes export it as two opaque bytes
// ('<V2') whose descr names the type.
bool is_bfloat16(const CaiDescription& d) {
  const std::string_view t = d.typestr;
  return t.size() == 3 && (t[0] == '<' || t[0] == '|') && t.substr(1) == "V2" && d.descr &&
         d.descr->size() == 1 && (*d.descr)[0].name == "bfloat16";
}

}  // namespace

[[noreturn]] void throw_cai_missing_key(std::string_view key) {
  throw cai_error("the required key '" + std::string(key) +
                  "' is missing (required: shape, typestr, data, version)");
}

[[noreturn]] void throw_cai_bad_entry(std::string_view key, std::string_view expected,
                                      std::string_view given) {
  throw InteropTypeError(std::string(kSource) + "['" + std::string(key) + "'] must be " +
                         std::string(expected) + "; got " + std::string(given));
}

ArrayImport validate_cai(const CaiDescription& d) {
  if (d.version < 0 || d.version > 3) {
    throw cai_error("version " + std::to_string(d.version) +
                    " is not supported; expected 0, 1, 2 or 3");
  }
  // Version 0 has no mask; a mask given anyway still means the data is partly
  // invalid, so it is refused in every version rather than ignored.
  if (d.mask_present) {
    throw InteropNotImplemented(std::string(kSource) +
                                ": Masked arrays are not supported (mask is not None)");
  }

  ArrayImport array;
  if (is_bfloat16(d)) {
    array.dtype = Scalar::BFloat16;
  } else {
    array.dtype = detail::parse_typestr_in(d.typestr, kTypestrContext);
    if (d.descr) check_descr(*d.descr, d.typestr, array.dtype);
  }
  array.itemsize = byte_size(array.dtype);

  array.shape = d.shape;
  detail::check_shape(array.shape, array.itemsize, kSource);
  // Strides None (or absent) means C-contiguous in every version (v0 says so too).
  if (d.strides) {
    if (d.strides->size() != d.shape.size()) {
      throw cai_error("strides has " + std::to_string(d.strides->size()) + " entries for " +
                      std::to_string(d.shape.size()) +
                      " dimensions; expected one byte stride per dimension, or None");
    }
    array.strides = *d.strides;  // any integers, negative and zero included
  } else {
    array.strides = c_contiguous_strides(array.shape, array.itemsize);
  }
  array.data = d.data;
  array.readonly = d.readonly;
  detail::complete_import(array, kSource);

  // v2+ allow 0 for zero-size arrays only; v0 and v1 said nothing, and a null
  // pointer to elements is wrong in any version.
  if (array.data == 0 && array.size > 0) {
    throw cai_error("data pointer is 0 for an array of " + std::to_string(array.size) +
                    " elements; only zero-size arrays may have data pointer 0");
  }

  // stream is a v3 key; an earlier version that sets one is honoured as Numba
  // does, since ignoring it could race with the producer.
  if (d.stream) {
    if (*d.stream == 0) {
      throw cai_error(
          "stream 0 is disallowed (it is ambiguous between None, the legacy and the "
          "per-thread default stream); expected None, 1 (legacy default stream), 2 (per-thread "
          "default stream) or a stream handle");
    }
    if (*d.stream < 0) {
      throw cai_error("stream " + std::to_string(*d.stream) +
                      " is not a stream; expected None, 1, 2 or a stream handle (a positive "
                      "integer)");
    }
    array.stream = d.stream;
  }
  return array;
}

}  // namespace cudajit::runtime
