// The amazon a turn has lifted: the twin of spiel_bounded/evaluators/value_net/lifted.py. An
// amazons turn is three actions (the amazon's cell, its destination, the arrow); after the first,
// OpenSpiel's observation shows the chosen amazon's cell as empty. `Restore` puts it back.
#pragma once

#include <optional>

#include "open_spiel/spiel.h"

namespace spiel_bounded {

class LiftedAmazon {
 public:
  // For amazons (any board size); nullopt for another game.
  static std::optional<LiftedAmazon> For(const open_spiel::Game& game);

  // Puts the amazon `state`'s turn has lifted (when the turn's first action is the last one
  // played) back on its cell in `observation`, the flat observation of `state`.
  void Restore(const open_spiel::State& state, float* observation) const;

 private:
  explicit LiftedAmazon(int cells) : cells_(cells) {}

  int cells_;
};

}  // namespace spiel_bounded
