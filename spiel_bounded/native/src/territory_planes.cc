#include "territory_planes.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "amazons_observation.h"
#include "heuristics_games.h"

namespace spiel_bounded {

TerritoryPlanes::TerritoryPlanes(const open_spiel::Game& game) {
  if (game.GetType().short_name != "amazons") {
    throw std::invalid_argument(
        "value network: inputs = territory reads an amazons board; " + GameDescription(game) +
        " is not one; accepted: amazons (any size), or inputs = observation");
  }
  *this = TerritoryPlanes(game.GetParameters().at("board_size").int_value(),
                          amazons_observation::kEmptyPlane, amazons_observation::kPlayerPlanes);
}

TerritoryPlanes::TerritoryPlanes(int rows, int empty_plane, std::array<int, 2> player_planes)
    : rows_(rows), cells_(rows * rows), empty_plane_(empty_plane), player_planes_(player_planes) {
  if (rows < 1 || cells_ > kMaxCells) {
    throw std::invalid_argument("value network: inputs = territory reads boards of 1 to " +
                                std::to_string(kMaxCells) + " cells; this one has " +
                                std::to_string(cells_));
  }
  Bits first_column = 0, last_column = 0;
  for (int cell = 0; cell < cells_; ++cell) {
    const Bits bit = Bits{1} << cell;
    board_ |= bit;
    if (cell % rows_ == 0) first_column |= bit;
    if (cell % rows_ == rows_ - 1) last_column |= bit;
  }
  int k = 0;
  for (int down = -1; down <= 1; ++down) {
    for (int right = -1; right <= 1; ++right) {
      if (down == 0 && right == 0) continue;
      Bits lands = board_;
      if (right == 1) lands &= ~first_column;  // a step right never lands in the first column
      if (right == -1) lands &= ~last_column;
      steps_[k++] = {down * rows_ + right, lands};
    }
  }
  for (std::vector<Bits>& levels : levels_) levels.resize(cells_);
}

TerritoryPlanes::Bits TerritoryPlanes::Reach(Bits from, Bits empty) const {
  Bits reach = 0;
  for (const Step& step : steps_) {
    const Bits open = step.lands & empty;
    Bits ray = from;
    while (ray != 0) {
      ray = (step.shift > 0 ? ray << step.shift : ray >> -step.shift) & open;
      reach |= ray;
    }
  }
  return reach;
}

int TerritoryPlanes::Levels(Bits amazons, Bits empty, std::vector<Bits>& levels) const {
  Bits seen = amazons, frontier = amazons;
  int count = 0;
  while (true) {
    frontier = Reach(frontier, empty) & ~seen;
    if (frontier == 0) return count;
    levels[count++] = frontier;
    seen |= frontier;
  }
}

std::array<TerritoryPlanes::Bits, TerritoryPlanes::kPlanes> TerritoryPlanes::Planes(
    const float* observation) const {
  const Bits empty = NonZeroBits(observation + empty_plane_ * cells_, cells_) & board_;
  int made[2];
  for (int player = 0; player < 2; ++player) {
    made[player] = Levels(NonZeroBits(observation + player_planes_[player] * cells_, cells_), empty,
                          levels_[player]);
  }
  // Level d - 1 holds the cells at distance d; within d: the union of levels up to it.
  std::array<Bits, kPlanes> planes = {0, 0, 0, 0, 0};
  Bits within[2] = {0, 0};
  for (int d = 0; d < std::max(made[0], made[1]); ++d) {
    const Bits at[2] = {d < made[0] ? levels_[0][d] : Bits{0},
                        d < made[1] ? levels_[1][d] : Bits{0}};
    planes[0] |= at[0] & ~(within[1] | at[1]);
    planes[1] |= at[1] & ~(within[0] | at[0]);
    planes[2] |= at[0] & at[1];
    within[0] |= at[0];
    within[1] |= at[1];
  }
  planes[3] = made[0] > 0 ? levels_[0][0] : 0;
  planes[4] = made[1] > 0 ? levels_[1][0] : 0;
  return planes;
}

void TerritoryPlanes::EntryBits(const float* observation, uint64_t* words) const {
  const std::array<Bits, kPlanes> planes = Planes(observation);
  std::fill(words, words + (size() + 63) / 64, uint64_t{0});
  for (int plane = 0; plane < kPlanes; ++plane) DepositBits(words, plane * cells_, planes[plane]);
}

std::array<int, TerritoryPlanes::kPlanes> TerritoryPlanes::Counts(const float* observation) const {
  const std::array<Bits, kPlanes> planes = Planes(observation);
  std::array<int, kPlanes> counts{};
  for (int plane = 0; plane < kPlanes; ++plane) {
    counts[plane] = __builtin_popcountll(static_cast<uint64_t>(planes[plane])) +
                    __builtin_popcountll(static_cast<uint64_t>(planes[plane] >> 64));
  }
  return counts;
}

int TerritoryPlanes::Entries(const float* observation, int first, int* entries) const {
  const std::array<Bits, kPlanes> planes = Planes(observation);
  int count = 0;
  for (int plane = 0; plane < kPlanes; ++plane) {
    const uint64_t halves[2] = {static_cast<uint64_t>(planes[plane]),
                                static_cast<uint64_t>(planes[plane] >> 64)};
    for (int half = 0; half < 2; ++half) {
      for (uint64_t bits = halves[half]; bits != 0; bits &= bits - 1) {
        entries[count++] = first + plane * cells_ + 64 * half + __builtin_ctzll(bits);
      }
    }
  }
  return count;
}

}  // namespace spiel_bounded
