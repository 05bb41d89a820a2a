#include "contact_planes.h"

#include <stdexcept>
#include <string>

#include "heuristics_games.h"
#include "plane_bits.h"

namespace spiel_bounded {
namespace {

constexpr int kGroupStep[ContactPlanes::kGroupSteps] = {1, 2, 3, 4, 5, 6, 7, 8};
constexpr int kContactStep[ContactPlanes::kContactSteps] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};

// The entries of a thermometer from `first`: entry k where `value` >= steps[k], k < `count`.
int Thermometer(int value, const int* steps, int count, int first, int* entries) {
  int made = 0;
  for (int k = 0; k < count && value >= steps[k]; ++k) entries[made++] = first + k;
  return made;
}

}  // namespace

ContactPlanes::ContactPlanes(const open_spiel::Game& game) {
  if (game.GetType().short_name != "clobber") {
    throw std::invalid_argument("value network: inputs = contacts reads a clobber board; " +
                                GameDescription(game) +
                                " is not one; accepted: clobber (boards of 2x2 up to 64 cells), "
                                "or inputs = observation");
  }
  const open_spiel::GameParameters params = game.GetParameters();
  *this = ContactPlanes(params.at("rows").int_value(), params.at("columns").int_value());
}

ContactPlanes::ContactPlanes(int rows, int columns)
    : rows_(rows), columns_(columns), cells_(rows * columns) {
  if (rows < 2 || columns < 2 || cells_ > kMaxCells) {  // so no shift reaches 64 bits
    throw std::invalid_argument(
        "value network: inputs = contacts reads clobber boards of at least 2 rows and 2 "
        "columns and at most " +
        std::to_string(kMaxCells) + " cells; this one is " + std::to_string(rows) + "x" +
        std::to_string(columns));
  }
  for (int cell = 0; cell < cells_; ++cell) {
    const uint64_t bit = uint64_t{1} << cell;
    board_ |= bit;
    if (cell % columns_ == 0) first_column_ |= bit;
    if (cell % columns_ == columns_ - 1) last_column_ |= bit;
  }
  const int contacts = rows_ * (columns_ - 1) + (rows_ - 1) * columns_;
  size_ = 5 * cells_ + contacts + 2 * kGroupSteps + kContactSteps;
}

uint64_t ContactPlanes::Around(uint64_t cells) const {
  const uint64_t sideways = ((cells & ~last_column_) << 1) | ((cells & ~first_column_) >> 1);
  return (sideways | (cells << columns_) | (cells >> columns_)) & board_;
}

uint64_t ContactPlanes::GroupOf(uint64_t seed, uint64_t stones) const {
  uint64_t group = seed;
  while (true) {
    const uint64_t grown = (group | Around(group)) & stones;
    if (grown == group) return group;
    group = grown;
  }
}

int ContactPlanes::Entries(const float* observation, int first, int* entries) const {
  const uint64_t sides[2] = {
      static_cast<uint64_t>(NonZeroBits(observation, cells_)) & board_,
      static_cast<uint64_t>(NonZeroBits(observation + cells_, cells_)) & board_};
  int count = 0;
  const auto deposit = [&](uint64_t bits, int offset) {
    for (; bits != 0; bits &= bits - 1) entries[count++] = offset + __builtin_ctzll(bits);
  };
  deposit(sides[0] & Around(sides[1]), first);
  deposit(sides[1] & Around(sides[0]), first + cells_);
  int offset = first + 2 * cells_;
  // A contact's bit is its left (upper) cell's.
  const uint64_t across =
      ((sides[0] & (sides[1] >> 1)) | (sides[1] & (sides[0] >> 1))) & ~last_column_;
  const uint64_t down =
      ((sides[0] & (sides[1] >> columns_)) | (sides[1] & (sides[0] >> columns_))) & board_;
  for (uint64_t bits = across; bits != 0; bits &= bits - 1) {
    const int cell = __builtin_ctzll(bits);
    entries[count++] = offset + cell / columns_ * (columns_ - 1) + cell % columns_;
  }
  offset += rows_ * (columns_ - 1);
  deposit(down, offset);
  offset += (rows_ - 1) * columns_;
  uint64_t classes[3] = {0, 0, 0};
  int live = 0, pairs = 0;
  for (uint64_t left = sides[0] | sides[1]; left != 0;) {
    const uint64_t group = GroupOf(left & -left, sides[0] | sides[1]);
    left &= ~group;
    if ((group & sides[0]) == 0 || (group & sides[1]) == 0) continue;
    ++live;
    const int stones = __builtin_popcountll(group);
    pairs += stones == 2;
    classes[stones == 2 ? 0 : stones <= 4 ? 1 : 2] |= group;
  }
  for (const uint64_t stones : classes) {
    deposit(stones, offset);
    offset += cells_;
  }
  count += Thermometer(live, kGroupStep, kGroupSteps, offset, entries + count);
  offset += kGroupSteps;
  count += Thermometer(pairs, kGroupStep, kGroupSteps, offset, entries + count);
  offset += kGroupSteps;
  const int contacts = __builtin_popcountll(across) + __builtin_popcountll(down);
  return count + Thermometer(contacts, kContactStep, kContactSteps, offset, entries + count);
}

}  // namespace spiel_bounded
