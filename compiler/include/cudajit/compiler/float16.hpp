// float16 and bfloat16 bit conversions: the cpu device's runtime
// (compiler/src/target/half_conversions.cpp) and kernel arguments use them.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace cudajit::target {

float half_bits_to_float(uint16_t h);
uint16_t float_to_half_bits(float v);
uint16_t double_to_half_bits(double v);
float bfloat16_bits_to_float(uint16_t b);
uint16_t double_to_bfloat16_bits(double v);

// The libcall names LLVM uses for half and bfloat on x86, with our definitions.
std::vector<std::pair<const char*, void*>> half_conversion_symbols();

}  // namespace cudajit::target
