#include "connection_planes.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

#include "heuristics_games.h"
#include "plane_bits.h"

namespace spiel_bounded {
namespace {

constexpr int kUnreached = std::numeric_limits<int>::max() / 4;

}  // namespace

ConnectionPlanes::ConnectionPlanes(const open_spiel::Game& game) {
  if (game.GetType().short_name != "hex") {
    throw std::invalid_argument("value network: inputs = connections reads a hex board; " +
                                GameDescription(game) +
                                " is not one; accepted: hex (any size), or inputs = observation");
  }
  const open_spiel::GameParameters params = game.GetParameters();
  const int rows = params.at("num_rows").int_value();
  const int columns = params.at("num_cols").int_value();
  // The full observation has a plane per cell state, state + 4: o's four, empty, x's four.
  if (params.at("plain_obs_tensor").bool_value()) {
    *this = ConnectionPlanes(rows, columns, {0}, {1});
  } else {
    *this = ConnectionPlanes(rows, columns, {5, 6, 7, 8}, {0, 1, 2, 3});
  }
}

ConnectionPlanes::ConnectionPlanes(int rows, int columns, std::vector<int> x_planes,
                                   std::vector<int> o_planes)
    : rows_(rows),
      columns_(columns),
      cells_(rows * columns),
      thermometer_(std::max(rows, columns)),
      x_planes_(std::move(x_planes)),
      o_planes_(std::move(o_planes)),
      neighbours_(cells_) {
  if (rows < 1 || columns < 1) {
    throw std::invalid_argument("connection planes: rows and columns must be >= 1");
  }
  constexpr int kSteps[6][2] = {{0, -1}, {0, 1}, {-1, 0}, {-1, 1}, {1, -1}, {1, 0}};
  for (int cell = 0; cell < cells_; ++cell) {
    const int row = cell / columns_, column = cell % columns_;
    for (const auto& [down, right] : kSteps) {
      if (row + down >= 0 && row + down < rows_ && column + right >= 0 &&
          column + right < columns_) {
        neighbours_[cell].push_back((row + down) * columns_ + column + right);
      }
    }
  }
  for (int column = 0; column < columns_; ++column) {
    edges_[0][0].push_back(column);
    edges_[0][1].push_back((rows_ - 1) * columns_ + column);
  }
  for (int row = 0; row < rows_; ++row) {
    edges_[1][0].push_back(row * columns_);
    edges_[1][1].push_back(row * columns_ + columns_ - 1);
  }
  for (int side = 0; side < 2; ++side) {
    costs_[side].resize(cells_);
    distances_[side].resize(cells_);
    levels_[side].resize(cells_ + 2);
  }
  queue_.resize(2 * cells_ + 1);
  if (cells_ > kMaxBitCells) return;
  for (int cell = 0; cell < cells_; ++cell) {
    const Bits bit = Bits{1} << cell;
    board_ |= bit;
    if (cell % columns_ != 0) not_first_column_ |= bit;
    if (cell % columns_ != columns_ - 1) not_last_column_ |= bit;
    for (int side = 0; side < 2; ++side) {
      for (int end = 0; end < 2; ++end) {
        const std::vector<int>& edge = edges_[side][end];
        if (std::find(edge.begin(), edge.end(), cell) != edge.end()) edge_bits_[side][end] |= bit;
      }
    }
  }
}

ConnectionPlanes::Bits ConnectionPlanes::Stones(const float* observation,
                                                const std::vector<int>& planes) const {
  Bits cells = 0;
  for (const int plane : planes) cells |= NonZeroBits(observation + plane * cells_, cells_);
  return cells;
}

ConnectionPlanes::Bits ConnectionPlanes::Around(Bits cells) const {
  // Cell j's neighbours are j -+ 1 in its row, j -+ columns, and j - columns + 1 and
  // j + columns - 1 (the hex board's rows lean right).
  const int c = columns_;
  const Bits near = ((cells << 1) & not_first_column_) | ((cells >> 1) & not_last_column_) |
                    (cells << c) | (cells >> c) | ((cells << (c - 1)) & not_last_column_) |
                    ((cells >> (c - 1)) & not_first_column_);
  return near & board_;
}

ConnectionPlanes::Bits ConnectionPlanes::Through(Bits cells, Bits own) const {
  for (Bits grown = cells | (Around(cells) & own); grown != cells;
       grown = cells | (Around(cells) & own)) {
    cells = grown;
  }
  return cells;
}

int ConnectionPlanes::Levels(Bits edge, Bits own, Bits empty, int last, Bits reach,
                             std::vector<Bits>& levels) const {
  // Level d: the cells at most d empty cells from the edge, the cell's own cost counted.
  levels[0] = Through(edge & own, own);
  int count = 1;
  for (; count <= last && (levels[count - 1] & reach) == 0; ++count) {
    const Bits previous = levels[count - 1];
    const Bits next = Through(previous | ((Around(previous) | edge) & empty), own);
    if (next == previous) break;
    levels[count] = next;
  }
  return count;
}

int* ConnectionPlanes::BitSide(int side, Bits own, Bits empty, int plane_first,
                               int thermometer_first, int* entries) const {
  std::vector<Bits>& from_first = levels_[0];
  std::vector<Bits>& from_second = levels_[1];
  const Bits second_edge = edge_bits_[side][1];
  const int made = Levels(edge_bits_[side][0], own, empty, cells_, second_edge, from_first);
  if ((from_first[made - 1] & second_edge) == 0) return entries;  // cut off: no path
  const int distance = made - 1;
  // An empty cell within a of the first edge and b of the second lies on a path of a + b - 1.
  const int grown = Levels(second_edge, own, empty, distance, 0, from_second);
  std::fill(from_second.begin() + grown, from_second.begin() + distance + 1,
            from_second[grown - 1]);
  Bits plane = 0;
  for (int a = 1; a <= distance; ++a) plane |= from_first[a] & from_second[distance + 1 - a];
  plane &= empty;
  const uint64_t halves[2] = {static_cast<uint64_t>(plane), static_cast<uint64_t>(plane >> 64)};
  for (int half = 0; half < 2; ++half) {
    for (uint64_t bits = halves[half]; bits != 0; bits &= bits - 1) {
      *entries++ = plane_first + 64 * half + __builtin_ctzll(bits);
    }
  }
  return Thermometer(distance, thermometer_first, entries);
}

int* ConnectionPlanes::Thermometer(int distance, int first, int* entries) const {
  for (int k = std::max(distance, 1); k <= thermometer_; ++k) *entries++ = first + k - 1;
  return entries;
}

void ConnectionPlanes::FromEdge(const std::vector<int>& costs, const std::vector<int>& edge,
                                std::vector<int>& distances) const {
  // Costs are 0 or 1: a double-ended queue (cost 0 to the front, 1 to the back) in a ring of
  // 2 * cells + 1 slots pops cells in the order of their distances. The queue only ever holds
  // two distances, d and d + 1, so a cell is in it at most twice.
  std::fill(distances.begin(), distances.end(), kUnreached);
  const int ring = static_cast<int>(queue_.size());
  int front = 0, back = 0;  // [front, back) in the ring
  const auto push = [&](int cell, int cost) {
    if (cost == 0) {
      front = (front + ring - 1) % ring;
      queue_[front] = cell;
    } else {
      queue_[back] = cell;
      back = (back + 1) % ring;
    }
  };
  for (const int cell : edge) {
    if (costs[cell] == kBlocked || costs[cell] >= distances[cell]) continue;
    distances[cell] = costs[cell];
    push(cell, costs[cell]);
  }
  while (front != back) {
    const int cell = queue_[front];
    front = (front + 1) % ring;
    for (const int next : neighbours_[cell]) {
      const int cost = costs[next];
      if (cost == kBlocked || distances[cell] + cost >= distances[next]) continue;
      distances[next] = distances[cell] + cost;
      push(next, cost);
    }
  }
}

int* ConnectionPlanes::Side(int side, int plane_first, int thermometer_first, int* entries) const {
  const std::vector<int>& costs = costs_[side];
  std::vector<int>& first = distances_[0];
  std::vector<int>& second = distances_[1];
  FromEdge(costs, edges_[side][0], first);
  FromEdge(costs, edges_[side][1], second);
  int distance = kUnreached;
  for (const int cell : edges_[side][1]) distance = std::min(distance, first[cell]);
  if (distance == kUnreached) return entries;
  for (int cell = 0; cell < cells_; ++cell) {
    if (costs[cell] == 1 && first[cell] + second[cell] - 1 <= distance) {
      *entries++ = plane_first + cell;
    }
  }
  return Thermometer(distance, thermometer_first, entries);
}

int ConnectionPlanes::Entries(const float* observation, int first, int* entries) const {
  const int thermometers = first + 2 * cells_;
  if (cells_ <= kMaxBitCells) {
    const Bits x = Stones(observation, x_planes_), o = Stones(observation, o_planes_);
    const Bits empty = board_ & ~(x | o);
    int* end = BitSide(0, x, empty, first, thermometers, entries);
    end = BitSide(1, o, empty, first + cells_, thermometers + thermometer_, end);
    return static_cast<int>(end - entries);
  }
  for (int cell = 0; cell < cells_; ++cell) {
    bool x = false, o = false;
    for (const int plane : x_planes_) x = x || observation[plane * cells_ + cell] != 0.0f;
    for (const int plane : o_planes_) o = o || observation[plane * cells_ + cell] != 0.0f;
    costs_[0][cell] = x ? 0 : (o ? kBlocked : 1);
    costs_[1][cell] = o ? 0 : (x ? kBlocked : 1);
  }
  int* end = Side(0, first, thermometers, entries);
  end = Side(1, first + cells_, thermometers + thermometer_, end);
  return static_cast<int>(end - entries);
}

}  // namespace spiel_bounded
