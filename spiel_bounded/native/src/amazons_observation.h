// How OpenSpiel's amazons observation lays out its planes of `rows * rows` cells: the empty cells,
// player 1's amazons, player 0's, the arrows. The twin of `value_net.territory.AmazonsBoard`.
#pragma once

#include <array>

namespace spiel_bounded::amazons_observation {

constexpr int kEmptyPlane = 0;
// Each player's amazons' plane: player 0's, then player 1's.
constexpr std::array<int, 2> kPlayerPlanes = {2, 1};

}  // namespace spiel_bounded::amazons_observation
