// The territory inputs a network with `inputs = "territory"` derives from an amazons observation:
// the twin of spiel_bounded/evaluators/value_net/territory.py. A cell's queen distance from a
// side is the fewest queen moves (through empty cells) one of its amazons needs to reach it. Five
// planes over the empty cells: those player 0 reaches first, those player 1 reaches first, the
// tied ones, then those each side reaches in one queen move. Boards of at most 128 cells, as
// bitboards (bit `row * size + column`).
#pragma once

#include <array>
#include <vector>

#include "input_planes.h"
#include "open_spiel/spiel.h"
#include "plane_bits.h"

namespace spiel_bounded {

class TerritoryPlanes final : public InputPlanes {
 public:
  static constexpr int kPlanes = 5;
  static constexpr int kMaxCells = 128;

  // The board of `game`, amazons of at most 128 cells; throws std::invalid_argument naming what
  // is accepted for any other game or a larger board.
  explicit TerritoryPlanes(const open_spiel::Game& game);
  // A `rows` x `rows` board whose observation holds the empty cells in `empty_plane` and each
  // player's amazons in `player_planes`.
  TerritoryPlanes(int rows, int empty_plane, std::array<int, 2> player_planes);

  int size() const override { return kPlanes * cells_; }
  int Entries(const float* observation, int first, int* entries) const override;
  // The entries that are 1 on `observation` as packed bits (entry k: bit k % 64 of word k / 64)
  // into `words`, (size() + 63) / 64 of them.
  void EntryBits(const float* observation, uint64_t* words) const;
  // How many cells each of the five planes of `observation` holds.
  std::array<int, kPlanes> Counts(const float* observation) const;

 private:
  using Bits = CellBits;

  // The five planes of `observation` as bitboards.
  std::array<Bits, kPlanes> Planes(const float* observation) const;

  // The cells one queen move from a cell of `from` through `empty`.
  Bits Reach(Bits from, Bits empty) const;
  // The empty cells at queen distance 1, 2, ... from `amazons` into `levels` (level d at d - 1);
  // returns how many levels were made.
  int Levels(Bits amazons, Bits empty, std::vector<Bits>& levels) const;

  int rows_ = 0;
  int cells_ = 0;
  int empty_plane_ = 0;
  std::array<int, 2> player_planes_ = {0, 0};
  Bits board_ = 0;
  // A queen step in each of the eight directions: bits up (`shift` > 0) or down, and the cells
  // a step may land on (off the column it would wrap into).
  struct Step {
    int shift = 0;
    Bits lands = 0;
  };
  std::array<Step, 8> steps_;
  mutable std::vector<Bits> levels_[2];  // scratch of `Entries`, by player
};

}  // namespace spiel_bounded
