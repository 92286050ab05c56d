// PTX text -> tokens, each with its line. Identifiers keep their dots
// ("add.s32", "%tid.x", ".reg"); the parser splits opcodes from modifiers.
#pragma once

#include <string>
#include <vector>

namespace cudajit::sim::ptx {

struct Token {
  enum class Kind { Identifier, Number, String, Punct, End };
  Kind kind = Kind::End;
  std::string text;
  int line = 0;
};

// Throws PtxError on a character PTX does not use or an unterminated comment/string.
std::vector<Token> tokenize(const std::string& text);

}  // namespace cudajit::sim::ptx
