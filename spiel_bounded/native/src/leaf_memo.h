// The values a value network gave the children at a search's depth limit, by the key of their
// first layer's input (`ChildSums::key`), so that a position reached again (a transposition, the
// next iteration of iterative deepening, the next move's search) is not valued again. Where the
// first layer's sums are exact (`DenseLayer::ExactSums`), equal inputs give the same values to
// the last bit whatever the path: a value read here is the value the network would compute.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "keys.h"

namespace spiel_bounded {

class LeafMemo {
 public:
  // `2^slots_log2` slots of `players` values each, one position a slot (the newest kept).
  LeafMemo(int players, int slots_log2);

  // The values stored under `key`, or nullptr.
  const double* Find(const Key& key) const;
  // Stores `values` (`players` entries) under `key`.
  void Store(const Key& key, const std::vector<double>& values);

 private:
  struct Slot {
    Key key;
    bool used = false;
  };
  size_t SlotOf(const Key& key) const { return static_cast<size_t>(key.low) & mask_; }

  int players_;
  size_t mask_;
  std::vector<Slot> slots_;
  std::vector<double> values_;  // [slot][player]
};

}  // namespace spiel_bounded
