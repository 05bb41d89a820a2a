// Transposition keys: the native twin of `spiel_bounded.search.keys`.
#pragma once

#include <cstdint>
#include <string>

#include "open_spiel/spiel.h"

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

// The key of `state` under `kind`: the same parts as the Python key function, hashed.
Key StateKey(const open_spiel::State& state, KeyKind kind);

// MurmurHash3-style 128-bit hash of `size` bytes.
Key Hash128(const char* data, size_t size);

}  // namespace spiel_bounded
