// One-instruction kernels for the instruction-family tests: k(out, a, b, n), where
// thread i loads a[i] and b[i] (of type `in`) into %a and %b, runs `body`, which
// leaves its result in %d (of type `out`), and stores %d to out[i]. Scratch
// registers for bodies: %p1-%p7 (pred), %h0-%h7 (b16), %r0-%r15 (b32),
// %rd0-%rd15 (b64), %t0-%t3 (f32), %td0-%td3 (f64), %c (the type of %a).
#pragma once

#include <bit>
#include <string>
#include <vector>

#include "sim_harness.hpp"

namespace cudajit::sim::testing {

inline std::string element_kernel(const std::string& in, const std::string& out,
                                  const std::string& body) {
  std::string in_size = std::to_string(ptx::type_size(in));
  std::string out_size = std::to_string(ptx::type_size(out));
  std::string text =
      ".visible .entry k(.param .u64 out, .param .u64 a, .param .u64 b, .param .u32 n)\n{\n"
      "\t.reg .pred %p<8>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n"
      "\t.reg .f32 %t<4>;\n\t.reg .f64 %td<4>;\n";
  text.append("\t.reg .").append(in).append(" %a, %b, %c;\n");
  text.append("\t.reg .").append(out).append(" %d;\n");
  text.append(
      "\t.reg .b32 %i, %n, %ntid, %ctaid;\n\t.reg .b64 %pa, %pb, %pout, %off;\n"
      "\tmov.u32 %i, %tid.x;\n\tmov.u32 %ntid, %ntid.x;\n\tmov.u32 %ctaid, %ctaid.x;\n"
      "\tmad.lo.u32 %i, %ctaid, %ntid, %i;\n\tld.param.u32 %n, [n];\n"
      "\tsetp.ge.u32 %p7, %i, %n;\n\t@%p7 bra DONE;\n\tld.param.u64 %pa, [a];\n"
      "\tld.param.u64 %pb, [b];\n\tld.param.u64 %pout, [out];\n");
  text.append("\tmul.wide.u32 %off, %i, ").append(in_size).append(";\n");
  text.append("\tadd.s64 %pa, %pa, %off;\n\tadd.s64 %pb, %pb, %off;\n");
  text.append("\tld.global.").append(in).append(" %a, [%pa];\n");
  text.append("\tld.global.").append(in).append(" %b, [%pb];\n");
  text.append(body).append("\n");
  text.append("\tmul.wide.u32 %off, %i, ").append(out_size).append(";\n");
  text.append("\tadd.s64 %pout, %pout, %off;\n");
  text.append("\tst.global.").append(out).append(" [%pout], %d;\nDONE:\n\tret;\n}\n");
  return ptx_module(text);
}

// Runs `body` (see element_kernel) on each pair a[i], b[i].
template <class R, class A, class B = A>
std::vector<R> run(const std::string& in, const std::string& out, const std::string& body,
                   const std::vector<A>& a, const std::vector<B>& b = {}) {
  return run_binary<R, A, B>(element_kernel(in, out, body), a, b);
}

// The same, with the PTX types read off the C++ types as bit types (b8 ... b64).
template <class R, class A>
std::vector<R> run_elements(const std::string& body, const std::vector<A>& a,
                            const std::vector<A>& b = {}) {
  auto bits = [](size_t bytes) {
    std::string type = std::to_string(bytes * 8);
    type.insert(type.begin(), 'b');  // not "b" + string: GCC 12's false -Wrestrict
    return type;
  };
  return run<R, A>(bits(sizeof(A)), bits(sizeof(R)), body, a, b);
}

inline uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }

}  // namespace cudajit::sim::testing
