#include "threat_planes.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

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
    player_planes_[0] = 0;
    player_planes_[1] = 1;
  } else if (game.GetType().short_name == "tic_tac_toe") {
    in_row_ = 3;
    empty_plane_ = 0;
    player_planes_[0] = 2;
    player_planes_[1] = 1;
  } else {
    throw std::invalid_argument("value network: inputs = threats reads the lines of a line game; " +
                                GameDescription(game) +
                                " has none; accepted: connect_four (absolute observation), "
                                "tic_tac_toe, or inputs = observation");
  }
  cells_ = rows * columns;
  constexpr int kDirections[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  for (int row = 0; row < rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      for (const auto& direction : kDirections) {
        const int last_row = row + (in_row_ - 1) * direction[0];
        const int last_column = column + (in_row_ - 1) * direction[1];
        if (last_row >= rows || last_column < 0 || last_column >= columns) continue;
        for (int step = 0; step < in_row_; ++step) {
          windows_.push_back((row + step * direction[0]) * columns + column + step * direction[1]);
        }
      }
    }
  }
}

void ThreatPlanes::Write(const float* observation, float* out) const {
  std::fill(out, out + size(), 0.0f);
  const float* empty = observation + empty_plane_ * cells_;
  const float* mine[2] = {observation + player_planes_[0] * cells_,
                          observation + player_planes_[1] * cells_};
  for (size_t start = 0; start < windows_.size(); start += in_row_) {
    int gaps = 0, gap = -1;
    float count[2] = {0.0f, 0.0f};
    for (int step = 0; step < in_row_; ++step) {
      const int cell = windows_[start + step];
      if (empty[cell] != 0.0f) {
        ++gaps;
        gap = cell;
      }
      count[0] += mine[0][cell];
      count[1] += mine[1][cell];
    }
    if (gaps != 1) continue;
    for (int player = 0; player < 2; ++player) {
      if (count[player] == static_cast<float>(in_row_ - 1)) out[player * cells_ + gap] = 1.0f;
    }
  }
}

}  // namespace spiel_bounded
