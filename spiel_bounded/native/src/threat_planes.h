// The threat planes a network with `inputs = "threats"` derives from a line game's observation:
// the twin of spiel_bounded/evaluators/value_net/threats.py. A player's threat is an empty cell
// that would complete a line: a window of `x_in_row` cells in a row, column or diagonal holding
// `x_in_row - 1` of the player's pieces and that empty cell. One plane per player (player 0's,
// then player 1's), 1 on each of the player's threats. Boards of at most 64 cells, read as
// bitboards (bit `row * columns + column`).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "input_planes.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

class ThreatPlanes final : public InputPlanes {
 public:
  static constexpr int kMaxCells = 64;  // one bit a cell

  // A board's cells, one bit a cell.
  struct Stones {
    uint64_t empty = 0;
    std::array<uint64_t, 2> pieces = {0, 0};  // each player's
  };

  // The lines of `game`: connect_four with its absolute observation (any rows, columns and
  // x_in_row on at most 64 cells) or tic_tac_toe. Throws std::invalid_argument naming them for
  // any other game.
  explicit ThreatPlanes(const open_spiel::Game& game);

  int cells() const { return cells_; }
  int size() const override { return 2 * cells_; }
  int Entries(const float* observation, int first, int* entries) const override {
    return StoneEntries(Read(observation), first, entries);
  }

  // The board an observation (the game's flat observation, planes first) shows.
  Stones Read(const float* observation) const;
  // Each player's threats on `stones`, one bit a cell.
  std::array<uint64_t, 2> Of(const Stones& stones) const;
  // The entries of the planes that are 1 on `stones`, counted from `first` (player 0's plane,
  // then player 1's), into `entries` (room for `size()`); their count.
  int StoneEntries(const Stones& stones, int first, int* entries) const;

 private:
  int cells_ = 0;
  int in_row_ = 0;
  int empty_plane_ = 0;
  std::array<int, 2> player_planes_ = {0, 0};
  // One direction of lines: a step moves `shift` bits up; `ahead[k]` marks the cells whose k-th
  // cell along it is on the board, `behind[k]` those whose k-th cell against it is (k >= 1).
  struct Direction {
    int shift = 0;
    std::vector<uint64_t> ahead, behind;
  };
  std::vector<Direction> directions_;
};

}  // namespace spiel_bounded
