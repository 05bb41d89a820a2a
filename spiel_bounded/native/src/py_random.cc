#include "py_random.h"

#include <utility>

namespace spiel_bounded {
namespace {

constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfU;
constexpr uint32_t kUpperMask = 0x80000000U;
constexpr uint32_t kLowerMask = 0x7fffffffU;
constexpr unsigned __int128 kWord = static_cast<unsigned __int128>(1) << 63;

// A uniform 63-bit word below `limit` (`babmcts.common.shuffle_word`).
uint64_t ShuffleWord(uint64_t limit, PyRandom& random) {
  uint64_t word = random.Bits63();
  while (word >= limit) word = random.Bits63();
  return word;
}

}  // namespace

void PyRandom::InitGenrand(uint32_t seed) {
  state_[0] = seed;
  for (int i = 1; i < kN; ++i) {
    state_[i] = 1812433253U * (state_[i - 1] ^ (state_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  }
  index_ = kN;
}

void PyRandom::Seed(uint64_t seed) {
  // CPython keys the generator with the seed's 32-bit words (at least one).
  uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  const int length = key[1] != 0 ? 2 : 1;
  InitGenrand(19650218U);
  int i = 1;
  int j = 0;
  for (int k = kN > length ? kN : length; k > 0; --k) {
    state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1664525U)) + key[j] +
                static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      state_[0] = state_[kN - 1];
      i = 1;
    }
    if (j >= length) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1566083941U)) -
                static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      state_[0] = state_[kN - 1];
      i = 1;
    }
  }
  state_[0] = 0x80000000U;
  index_ = kN;
}

void PyRandom::Twist() {
  for (int k = 0; k < kN; ++k) {
    const uint32_t y = (state_[k] & kUpperMask) | (state_[(k + 1) % kN] & kLowerMask);
    state_[k] = state_[(k + kM) % kN] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
  }
  index_ = 0;
}

void ShuffleActions(std::vector<int64_t>& actions, PyRandom& random) {
  const int64_t count = static_cast<int64_t>(actions.size());
  int64_t i = 0;
  // Runs of positions whose radices multiply to at most 2**63 (`babmcts.common.shuffle_plan`).
  while (i < count - 1) {
    unsigned __int128 product = 1;
    int64_t stop = i;
    while (stop < count - 1 && product * static_cast<uint64_t>(count - stop) <= kWord) {
      product *= static_cast<uint64_t>(count - stop);
      ++stop;
    }
    const auto limit = static_cast<uint64_t>(kWord - kWord % product);
    uint64_t word = ShuffleWord(limit, random);
    for (; i < stop; ++i) {
      const auto radix = static_cast<uint64_t>(count - i);
      const int64_t j = i + static_cast<int64_t>(word % radix);
      word /= radix;
      std::swap(actions[i], actions[j]);
    }
  }
}

}  // namespace spiel_bounded
