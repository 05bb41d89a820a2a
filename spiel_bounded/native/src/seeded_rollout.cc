// `SeededRolloutEvaluator` (spiel_bounded/evaluators/seeded_rollout.py) in C++. Python seeds
// each playout with the CRC-32 of "{current_player}|{state}" and plays it with OpenSpiel's own
// C++ uniform random bots through `pyspiel.evaluate_bots`; here the same C++ functions run with
// the same seeds, so the playouts, and the values, are the same to the last bit.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heuristics_games.h"
#include "open_spiel/algorithms/evaluate_bots.h"
#include "open_spiel/spiel_bots.h"

namespace spiel_bounded {
namespace {

constexpr uint32_t kSeedMask = 0x7FFFFFFF;  // _SEED_MASK: the bots take a 32-bit int

// zlib's CRC-32 (reflected polynomial 0xEDB88320), as Python's `zlib.crc32`.
uint32_t Crc32(const std::string& bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> entries{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      entries[n] = c;
    }
    return entries;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (const char byte : bytes) crc = table[(crc ^ static_cast<uint8_t>(byte)) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

class SeededRolloutEvaluator final : public Evaluator {
 public:
  explicit SeededRolloutEvaluator(int rollouts) : rollouts_(rollouts) {}

  double Value(const open_spiel::State& state, int player) override {
    Values(state, buffer_);
    return buffer_[player];
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    const int players = state.NumPlayers();
    const uint32_t base = Crc32(std::to_string(state.CurrentPlayer()) + "|" + state.ToString());
    out.assign(players, 0.0);
    for (int playout = 0; playout < rollouts_; ++playout) {
      // Python's integers do not wrap: `base + 104_729 * playout` is masked afterwards, which
      // 64-bit arithmetic reproduces for any realistic number of playouts.
      const auto seed = static_cast<int>((uint64_t{base} + 104729ull * playout) & kSeedMask);
      std::vector<std::unique_ptr<open_spiel::Bot>> bots;
      std::vector<open_spiel::Bot*> pointers;
      for (int player = 0; player < players; ++player) {
        bots.push_back(open_spiel::MakeUniformRandomBot(
            player, static_cast<int>((uint64_t(seed) + 7919ull * (player + 1)) & kSeedMask)));
        pointers.push_back(bots.back().get());
      }
      std::unique_ptr<open_spiel::State> copy = state.Clone();
      const std::vector<double> returns = open_spiel::EvaluateBots(copy.get(), pointers, seed);
      for (int player = 0; player < players; ++player) out[player] += returns[player];
    }
    for (double& total : out) total = total / rollouts_;
  }

  std::string name() const override { return "seeded_rollout"; }

 private:
  int rollouts_;
  std::vector<double> buffer_;
};

}  // namespace

std::unique_ptr<Evaluator> MakeSeededRolloutEvaluator(int rollouts) {
  return std::make_unique<SeededRolloutEvaluator>(rollouts);
}

}  // namespace spiel_bounded
