// Text helpers of the heuristics that read `str(state)` the way Python's str methods do.
#include <cctype>
#include <stdexcept>
#include <string>
#include <vector>

#include "heuristics_games.h"

namespace spiel_bounded {

std::string PyRepr(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string GameDescription(const open_spiel::Game& game) {
  std::string description = game.ToString();
  if (description.size() > 2 && description.compare(description.size() - 2, 2, "()") == 0) {
    description.resize(description.size() - 2);
  }
  return description;
}

std::vector<std::string> SplitWhitespace(const std::string& text) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) parts.emplace_back(text, start, i - start);
  }
  return parts;
}

long long ParseInt(const std::string& text, const char* what) {
  size_t i = 0;
  const bool negative = !text.empty() && (text[0] == '-' || text[0] == '+');
  if (negative) i = 1;
  if (i == text.size() || text.size() - i > 18) {
    throw std::invalid_argument(std::string("cannot read ") + what + " from " + PyRepr(text));
  }
  long long value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') {
      throw std::invalid_argument(std::string("cannot read ") + what + " from " + PyRepr(text));
    }
    value = 10 * value + (text[i] - '0');
  }
  return text[0] == '-' ? -value : value;
}

int PyIndex(long long index, int size) {
  const long long resolved = index < 0 ? index + size : index;
  if (resolved < 0 || resolved >= size) {
    throw std::out_of_range("index " + std::to_string(index) + " out of range for " +
                            std::to_string(size) + " items");
  }
  return static_cast<int>(resolved);
}

}  // namespace spiel_bounded
