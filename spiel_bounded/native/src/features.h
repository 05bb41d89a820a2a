// What a value network sees: the native twin of `evaluators.value_net.features.Features`. The
// observation tensor of the player to move from OpenSpiel's default observer, then one mover bit
// per player and a last one for chance; a chance node is shown as its chance view says
// ("next_mover": the player who moves once chance has acted observes, their bit and the chance
// bit set; "player_0": player 0 observes, the chance bit alone), and an amazon lifted mid-turn as
// its lifted view says ("restored": back on its cell; "observed": missing, as OpenSpiel shows it).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lifted_amazon.h"
#include "open_spiel/observer.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

// A checkpoint's views (`Checkpoint.chance_view`, `Checkpoint.lifted_view`).
struct FeatureViews {
  std::string chance = "next_mover";
  std::string lifted = "restored";
};

class Features {
 public:
  // Throws std::invalid_argument for an unknown view or a game without an observation tensor
  // written in one piece.
  Features(const open_spiel::Game& game, const FeatureViews& views);

  // Entries of the whole input: the observation, then the players' bits and the chance bit.
  int size() const { return observation_size_ + players_ + 1; }
  int observation_size() const { return observation_size_; }

  // Writes the observation of `state` (not terminal) into `observed()` and the bits into
  // `bits()`.
  void Observe(const open_spiel::State& state);
  // Writes the observation of `state` by `observer` into `observed()`, as the views show it
  // (the bits are left as they are).
  void ObserveAs(const open_spiel::State& state, int observer);
  // The whole input of `state` (not terminal) into `out[0, size())`.
  void Write(const open_spiel::State& state, float* out);

  const float* observed() const { return observed_; }
  const float* bits() const { return bits_.data(); }
  open_spiel::Observation& observation() { return *observation_; }

 private:
  int players_;
  int observation_size_;
  bool next_mover_;
  std::unique_ptr<open_spiel::Observation> observation_;
  float* observed_ = nullptr;  // the buffer `observation_` writes
  std::vector<float> bits_;
  std::optional<LiftedAmazon> lifted_;  // amazons with the "restored" view
};

}  // namespace spiel_bounded
