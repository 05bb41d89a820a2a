// The contact inputs a network with `inputs = "contacts"` derives from a clobber observation: the
// twin of spiel_bounded/evaluators/value_net/contacts.py. For each side its stones next to the
// other's, the horizontal then vertical contacts (adjacent stones of different sides), planes of
// the stones of live groups (4-connected stones holding both sides') of 2, 3-4 and 5+ stones,
// and thermometers of the live groups, the live groups of 2 stones and the contacts. Boards of at
// most 64 cells, as bitboards (bit `row * columns + column`).
#pragma once

#include <cstdint>

#include "input_planes.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

class ContactPlanes final : public InputPlanes {
 public:
  static constexpr int kMaxCells = 64;
  static constexpr int kGroupSteps = 8;     // contacts.GROUP_STEPS
  static constexpr int kContactSteps = 10;  // len(contacts.CONTACT_STEPS)

  // The board of `game`, clobber of 2x2 up to 64 cells; throws std::invalid_argument naming what
  // is accepted for any other game or a larger board.
  explicit ContactPlanes(const open_spiel::Game& game);
  // A `rows` x `columns` board (at least 2 x 2, at most 64 cells; else std::invalid_argument)
  // whose observation holds player 0's stones in plane 0 and player 1's in plane 1.
  ContactPlanes(int rows, int columns);

  int size() const override { return size_; }
  int Entries(const float* observation, int first, int* entries) const override;

 private:
  // The cells next to a cell of `cells`.
  uint64_t Around(uint64_t cells) const;
  // The group of `stones` holding the cell `seed`.
  uint64_t GroupOf(uint64_t seed, uint64_t stones) const;

  int rows_ = 0;
  int columns_ = 0;
  int cells_ = 0;
  int size_ = 0;
  uint64_t board_ = 0;
  uint64_t first_column_ = 0;
  uint64_t last_column_ = 0;
};

}  // namespace spiel_bounded
