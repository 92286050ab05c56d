// Builds one-instruction kernels for the float and conversion tests:
// k(u64 out, u64 a, u64 b, u32 n) loads a[i] and b[i] into %a and %b, runs `body`
// (which writes %y), and stores %y to out[i].
#pragma once

#include <bit>
#include <string>
#include <vector>

#include "sim_harness.hpp"

namespace cudajit::sim::testing {

inline std::string bits_type(int bytes) {
  std::string type = std::to_string(bytes * 8);
  type.insert(type.begin(), 'b');  // not "b" + string: GCC 12's false -Wrestrict
  return type;
}

inline std::string element_kernel(int in_bytes, int out_bytes, const std::string& body) {
  std::string in = bits_type(in_bytes), out = bits_type(out_bytes);
  std::string text =
      ".visible .entry k(.param .u64 out_p, .param .u64 a_p, .param .u64 b_p, .param .u32 n_p)\n"
      "{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<10>;\n"
      "\t.reg .f32 %t<4>;\n\t.reg .f64 %td<4>;\n";
  text.append("\t.reg .").append(in).append(" %a, %b, %c;\n");
  text.append("\t.reg .").append(out).append(" %y;\n");
  text.append(
      "\tmov.u32 %r1, %tid.x;\n\tld.param.u32 %r2, [n_p];\n\tsetp.ge.u32 %p1, %r1, %r2;\n"
      "\t@%p1 bra END;\n\tld.param.u64 %rd1, [out_p];\n\tld.param.u64 %rd2, [a_p];\n"
      "\tld.param.u64 %rd3, [b_p];\n");
  text.append("\tmul.wide.u32 %rd4, %r1, ").append(std::to_string(in_bytes)).append(";\n");
  text.append("\tmul.wide.u32 %rd5, %r1, ").append(std::to_string(out_bytes)).append(";\n");
  text.append("\tadd.s64 %rd6, %rd2, %rd4;\n\tadd.s64 %rd7, %rd3, %rd4;\n\tadd.s64 %rd8, %rd1, %rd5;\n");
  text.append("\tld.global.").append(in).append(" %a, [%rd6];\n");
  text.append("\tld.global.").append(in).append(" %b, [%rd7];\n\t").append(body).append("\n");
  text.append("\tst.global.").append(out).append(" [%rd8], %y;\nEND:\n\tret;\n}\n");
  return ptx_module(text);
}

// Runs `body` over the element pairs (a[i], b[i]); returns y for each.
template <class Out, class In>
std::vector<Out> run_elements(const std::string& body, const std::vector<In>& a,
                              const std::vector<In>& b = {}) {
  return run_binary<Out, In>(element_kernel(sizeof(In), sizeof(Out), body), a,
                             b.empty() ? std::vector<In>(a.size()) : b);
}

inline uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }

}  // namespace cudajit::sim::testing
