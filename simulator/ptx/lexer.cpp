#include "lexer.hpp"

#include <cctype>

#include "module.hpp"

namespace cudajit::sim::ptx {

namespace {

bool identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}

}  // namespace

std::vector<Token> tokenize(const std::string& text) {
  std::vector<Token> tokens;
  int line = 1;
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '\n') {
      ++line, ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      int start = line;
      i += 2;
      while (i + 1 < n && !(text[i] == '*' && text[i + 1] == '/')) line += text[i++] == '\n';
      if (i + 1 >= n) throw PtxError(start, "unterminated /* comment");
      i += 2;
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < n && text[j] != '"' && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      if (j >= n || text[j] != '"') throw PtxError(line, "unterminated string");
      tokens.push_back({Token::Kind::String, text.substr(i + 1, j - i - 1), line});
      i = j + 1;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i + 1;
      // Hex floats (0f..., 0d...), hex/binary integers, decimal floats with exponents.
      while (j < n &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '.' ||
              ((text[j] == '+' || text[j] == '-') && (text[j - 1] == 'e' || text[j - 1] == 'E') &&
               !(text[i] == '0' && i + 1 < n && (text[i + 1] == 'x' || text[i + 1] == 'X')))))
        ++j;
      tokens.push_back({Token::Kind::Number, text.substr(i, j - i), line});
      i = j;
    } else if (identifier_start(c)) {
      size_t j = i + 1;
      // Modifiers with a scope, such as ld.shared::cta, stay in their instruction's word.
      while (j < n && (identifier_char(text[j]) ||
                       (text[j] == ':' && j + 2 < n && text[j + 1] == ':' &&
                        std::isalpha(static_cast<unsigned char>(text[j + 2]))))) {
        j += text[j] == ':' ? 2 : 1;
      }
      std::string word = text.substr(i, j - i);
      if (word[0] == '.' && word.find('.', 1) != std::string::npos) {
        // Directives written together (".reg.b16 x;" in cuda_fp16.h's inline PTX) are
        // separate tokens, as ptxas reads them.
        for (size_t at = 0; at < word.size();) {
          size_t next = word.find('.', at + 1);
          tokens.push_back({Token::Kind::Identifier, word.substr(at, next - at), line});
          at = next == std::string::npos ? word.size() : next;
        }
      } else {
        tokens.push_back({Token::Kind::Identifier, word, line});
      }
      i = j;
    } else if (std::string_view(",;:{}[]()+-<>@!=|").find(c) != std::string_view::npos) {
      tokens.push_back({Token::Kind::Punct, std::string(1, c), line});
      ++i;
    } else {
      throw PtxError(line, std::string("unexpected character '") + c + "'");
    }
  }
  tokens.push_back({Token::Kind::End, "", line});
  return tokens;
}

}  // namespace cudajit::sim::ptx
