// The children of connect_four and tic_tac_toe positions from the parent's observation, for the
// value networks (value_net.cc): the twin of `_placement_child` in
// spiel_bounded/evaluators/value_net/children.py. A move puts the mover's piece on an empty cell
// (connect_four: the lowest empty cell of the move's column) and the child is terminal when the
// piece completes a line of `x_in_row` or fills the board; otherwise the child's observation is
// the parent's with two entries changed, so neither the child state nor its observation need be
// made.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "line_masks.h"
#include "open_spiel/observer.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

class Placement {
 public:
  // The rules of `game` (connect_four with its absolute observation, any rows, columns and
  // x_in_row on at most 64 cells; tic_tac_toe), or nullopt for another game. They are checked
  // against what the game's observer writes (`observation` writes `observed`) for every move of the
  // first two plies: nullopt where they differ (another version of the game).
  static std::optional<Placement> Of(const open_spiel::Game& game,
                                     open_spiel::Observation& observation, const float* observed);

  // The children of a position whose observation is `board` (read by `Child`, so it must stay
  // unchanged) and whose player to move is `mover`.
  void Begin(const float* board, int mover);

  // A child's observation: the parent's with the entry `emptied` 1 -> 0 (the empty cells' plane)
  // and the entry `filled` 0 -> 1 (the mover's plane).
  struct Change {
    int emptied;
    int filled;
  };
  // The child of the legal move `move`: nullopt when it is terminal (a line or a full board).
  std::optional<Change> Child(open_spiel::Action move) const;

  // Brings `board`, the observation after the moves `played`, to the one after `history`: the
  // moves after their common start are taken back, the others played. Each entry it changes
  // gives a term (the entry into `rows`, -1 or +1 into `xs`); returns their count, or -1 when
  // more than `limit` would be needed or a move does not fit the board (`board` is then partly
  // changed: the caller observes it afresh).
  int Follow(const std::vector<open_spiel::State::PlayerAction>& played,
             const std::vector<open_spiel::State::PlayerAction>& history, float* board, int* rows,
             float* xs, int limit) const;

 private:
  // The cell `move` fills on `board` (`take_back`: the cell it filled, the last move), or -1.
  int CellOf(const float* board, open_spiel::Action move, bool take_back) const;

  int rows_ = 0;
  int columns_ = 0;
  int in_row_ = 0;
  bool gravity_ = false;  // a move names a column and the piece falls to its lowest empty cell
  int empty_plane_ = 0;
  int plane_of_[2] = {0, 0};  // each player's pieces' plane
  const float* board_ = nullptr;
  int mover_ = 0;
  int empty_cells_ = 0;
  uint64_t mover_stones_ = 0;  // the mover's pieces on `board_`, one bit a cell
  std::shared_ptr<const LineMasks> lines_;
};

}  // namespace spiel_bounded
