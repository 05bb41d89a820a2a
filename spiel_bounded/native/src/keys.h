// Transposition keys: the native twin of `spiel_bounded.search.keys`.
#pragma once

#include <cstdint>
#include <string>

#include "open_spiel/spiel.h"
#include "state_text.h"

namespace spiel_bounded {

// A 128-bit hash of the Python key's parts. Two states share a key exactly when their Python
// keys are equal, but for hash collisions (about n^2 / 2^129 for n stored states).
struct Key {
  uint64_t high = 0;
  uint64_t low = 0;
  bool operator==(const Key& other) const { return high == other.high && low == other.low; }
  bool operator!=(const Key& other) const { return !(*this == other); }
};

// The key kinds of `spiel_bounded.search.keys.KEY_KINDS`.
enum class KeyKind { kString, kStringMove, kAmazons, kCheckers, kPig, kChanceCount, kHistory };

// The kind named `name`; throws std::invalid_argument naming the accepted ones.
KeyKind ParseKeyKind(const std::string& name);

// The keys of one search: the same parts as the Python key function of `kind` (the board text
// of connect_four as its stones and of amazons as its cells, read without building the text),
// hashed.
class KeyFunction {
 public:
  KeyFunction(const open_spiel::State& root, KeyKind kind);

  // The key of `state` (the root or a state below it).
  Key operator()(const open_spiel::State& state) const;

 private:
  void Int(int64_t value) const {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void Text(const open_spiel::State& state) const;

  KeyKind kind_;
  StateText text_;
  bool amazons_;  // the root is amazons': its states' text is read as their cells
  mutable std::string text_buffer_;  // reused: no allocation per key
  mutable std::string bytes_;
};

// MurmurHash3-style 128-bit hash of `size` bytes.
Key Hash128(const char* data, size_t size);

}  // namespace spiel_bounded
