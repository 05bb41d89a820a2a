// The threat planes a network with `inputs = "threats"` derives from a line game's observation:
// the twin of spiel_bounded/evaluators/value_net/threats.py. A player's threat is an empty cell
// that would complete a line: a window of `x_in_row` cells in a row, column or diagonal holding
// `x_in_row - 1` of the player's pieces and that empty cell. One plane per player (player 0's,
// then player 1's), 1 on each of the player's threats.
#pragma once

#include <vector>

#include "open_spiel/spiel.h"

namespace spiel_bounded {

class ThreatPlanes {
 public:
  // The lines of `game`: connect_four with its absolute observation (any rows, columns and
  // x_in_row) or tic_tac_toe. Throws std::invalid_argument naming them for any other game.
  explicit ThreatPlanes(const open_spiel::Game& game);

  int size() const { return 2 * cells_; }
  // The planes of `observation` (the game's flat observation, planes first) into
  // `out[0, size())`.
  void Write(const float* observation, float* out) const;

 private:
  int cells_ = 0;
  int in_row_ = 0;
  int empty_plane_ = 0;
  int player_planes_[2] = {0, 0};
  std::vector<int> windows_;  // the cells of each window, `in_row_` a window
};

}  // namespace spiel_bounded
