// The random stream of Python's `random.Random(seed)` (CPython's Mersenne Twister), and the
// expansion-order shuffle of `spiel_bounded.search.babmcts.common.shuffle_actions` over it: the
// native BABMCTS tree draws exactly what the reference tree draws, so that under the same seed both
// build the same tree.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace spiel_bounded {

class PyRandom {
 public:
  // As `random.Random(seed)` for an integer seed >= 0 (CPython's `init_by_array` over the
  // seed's 32-bit words, least significant first).
  explicit PyRandom(uint64_t seed = 0) { Seed(seed); }
  void Seed(uint64_t seed);

  // `random.random()`: 53 random bits in [0, 1).
  double Random() {
    const uint32_t a = Next() >> 5;
    const uint32_t b = Next() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  // `random.getrandbits(63)`: two words, the first the low 32 bits.
  uint64_t Bits63() {
    const uint64_t low = Next();
    const uint64_t high = Next() >> 1;
    return low | (high << 32);
  }

 private:
  static constexpr int kN = 624;
  uint32_t Next() {
    if (index_ >= kN) Twist();
    uint32_t y = state_[index_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    return y ^ (y >> 18);
  }
  void Twist();
  void InitGenrand(uint32_t seed);

  std::array<uint32_t, kN> state_{};
  int index_ = kN + 1;
};

// Shuffles `actions` in place as `shuffle_actions(actions, random.getrandbits)` does.
void ShuffleActions(std::vector<int64_t>& actions, PyRandom& random);

}  // namespace spiel_bounded
