#include "threat_planes.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "connect_four_board.h"
#include "heuristics_games.h"

namespace spiel_bounded {

ThreatPlanes::ThreatPlanes(const open_spiel::Game& game) {
  int rows = 3, columns = 3;
  if (const std::optional<ConnectFourShape> shape = ConnectFourShapeOf(game)) {
    rows = shape->rows;
    columns = shape->columns;
    in_row_ = shape->in_row;
    empty_plane_ = 2;
    player_planes_ = {0, 1};
  } else if (game.GetType().short_name == "tic_tac_toe") {
    in_row_ = 3;
    empty_plane_ = 0;
    player_planes_ = {2, 1};
  } else {
    throw std::invalid_argument("value network: inputs = threats reads the lines of a line game; " +
                                GameDescription(game) +
                                " has none; accepted: connect_four (absolute observation), "
                                "tic_tac_toe, or inputs = observation");
  }
  cells_ = rows * columns;
  if (cells_ > kMaxCells) {
    throw std::invalid_argument("value network: inputs = threats reads boards of at most " +
                                std::to_string(kMaxCells) + " cells; " + GameDescription(game) +
                                " has " + std::to_string(cells_));
  }
  constexpr int kDirections[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  for (int row = 0; row < rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      for (const auto& direction : kDirections) {
        const int last_row = row + (in_row_ - 1) * direction[0];
        const int last_column = column + (in_row_ - 1) * direction[1];
        if (last_row >= rows || last_column < 0 || last_column >= columns) continue;
        uint64_t window = 0;
        for (int step = 0; step < in_row_; ++step) {
          window |=
              uint64_t{1} << ((row + step * direction[0]) * columns + column + step * direction[1]);
        }
        windows_.push_back(window);
      }
    }
  }
}

ThreatPlanes::Stones ThreatPlanes::Read(const float* observation) const {
  Stones stones;
  const float* empty = observation + empty_plane_ * cells_;
  const float* pieces[2] = {observation + player_planes_[0] * cells_,
                            observation + player_planes_[1] * cells_};
  for (int cell = 0; cell < cells_; ++cell) {
    const uint64_t bit = uint64_t{1} << cell;
    if (empty[cell] != 0.0f) stones.empty |= bit;
    if (pieces[0][cell] != 0.0f) stones.pieces[0] |= bit;
    if (pieces[1][cell] != 0.0f) stones.pieces[1] |= bit;
  }
  return stones;
}

std::array<uint64_t, 2> ThreatPlanes::Of(const Stones& stones) const {
  // Without branches: a window adds its gap where it has exactly one empty cell and the player's
  // pieces fill the rest.
  uint64_t threats0 = 0, threats1 = 0;
  for (const uint64_t window : windows_) {
    const uint64_t gap = stones.empty & window;
    const uint64_t rest = window ^ gap;
    const uint64_t one_gap = (gap != 0) & ((gap & (gap - 1)) == 0);
    threats0 |= gap & (0 - (one_gap & ((stones.pieces[0] & window) == rest)));
    threats1 |= gap & (0 - (one_gap & ((stones.pieces[1] & window) == rest)));
  }
  return {threats0, threats1};
}

int ThreatPlanes::Entries(const Stones& stones, int first, int* entries) const {
  const std::array<uint64_t, 2> threats = Of(stones);
  int count = 0;
  for (int player = 0; player < 2; ++player) {
    for (uint64_t bits = threats[player]; bits != 0; bits &= bits - 1) {
      entries[count++] = first + player * cells_ + __builtin_ctzll(bits);
    }
  }
  return count;
}

void ThreatPlanes::Write(const float* observation, float* out) const {
  std::fill(out, out + size(), 0.0f);
  std::array<int, 2 * kMaxCells> entries;
  const int count = Entries(Read(observation), 0, entries.data());
  for (int k = 0; k < count; ++k) out[entries[k]] = 1.0f;
}

}  // namespace spiel_bounded
