// The connection inputs a network with `inputs = "connections"` derives from a hex observation:
// the twin of spiel_bounded/evaluators/value_net/connections.py. A side's distance is the fewest
// empty cells it must still fill to join its two edges (x: the first row to the last; o: the first
// column to the last): the cheapest path over its stones (cost 0) and empty cells (cost 1). For
// x, then o: a plane of the empty cells on one of its cheapest paths, then its distance as a
// thermometer of max(rows, columns) entries (entry k from 1: the distance is at most k).
#pragma once

#include <vector>

#include "input_planes.h"
#include "open_spiel/spiel.h"
#include "plane_bits.h"

namespace spiel_bounded {

class ConnectionPlanes final : public InputPlanes {
 public:
  // The board of `game`, hex (any rows and columns, either observation); throws
  // std::invalid_argument naming it for any other game.
  explicit ConnectionPlanes(const open_spiel::Game& game);
  // A board of `rows` x `columns` whose observation holds x's stones in `x_planes` and o's in
  // `o_planes` (each plane `rows * columns` entries).
  ConnectionPlanes(int rows, int columns, std::vector<int> x_planes, std::vector<int> o_planes);

  int size() const override { return 2 * (cells_ + thermometer_); }
  int Entries(const float* observation, int first, int* entries) const override;

 private:
  static constexpr int kBlocked = -1;  // a cell the other side holds
  using Bits = CellBits;               // a board of at most 128 cells
  static constexpr int kMaxBitCells = 128;

  // Each cell's cheapest path from the cells `edge` over `costs`, the cell's own cost and the
  // edge cell's counted, into `distances` (a 0-1 breadth-first search).
  void FromEdge(const std::vector<int>& costs, const std::vector<int>& edge,
                std::vector<int>& distances) const;
  // One side's entries from `costs_[side]` (its plane from `plane_first`, its thermometer from
  // `thermometer_first`); returns the end of `entries`. Boards of any size.
  int* Side(int side, int plane_first, int thermometer_first, int* entries) const;
  // The same from the side's stones `own` and the empty cells `empty`, on boards of at most
  // 128 cells: the cells within each distance of an edge grown a step at a time as bitboards.
  int* BitSide(int side, Bits own, Bits empty, int plane_first, int thermometer_first,
               int* entries) const;
  // The cells where any of `planes` of `observation` is set.
  Bits Stones(const float* observation, const std::vector<int>& planes) const;
  // The cells next to a cell of `cells`, and `cells` grown through the stones `own` next to them.
  Bits Around(Bits cells) const;
  Bits Through(Bits cells, Bits own) const;
  // The cells within distance 0, 1, ... of the edge `edge` into `levels`, up to `last`, the
  // first that meets `reach`, or until they stop growing; returns how many were made.
  int Levels(Bits edge, Bits own, Bits empty, int last, Bits reach,
             std::vector<Bits>& levels) const;
  int* Thermometer(int distance, int first, int* entries) const;

  int rows_ = 0;
  int columns_ = 0;
  int cells_ = 0;
  int thermometer_ = 0;
  std::vector<int> x_planes_, o_planes_;
  std::vector<std::vector<int>> neighbours_;  // by cell
  std::vector<int> edges_[2][2];              // by side: its two edges' cells
  Bits board_ = 0, not_first_column_ = 0, not_last_column_ = 0;
  Bits edge_bits_[2][2] = {{0, 0}, {0, 0}};
  // Scratch of `Entries` (an evaluator runs one search at a time).
  mutable std::vector<int> costs_[2];      // by side: 0 own stone, 1 empty, kBlocked
  mutable std::vector<int> distances_[2];  // from a side's first edge, from its second
  mutable std::vector<int> queue_;
  mutable std::vector<Bits> levels_[2];  // from a side's first edge, from its second
};

}  // namespace spiel_bounded
