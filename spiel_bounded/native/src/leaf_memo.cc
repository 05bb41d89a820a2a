#include "leaf_memo.h"

#include <algorithm>

namespace spiel_bounded {

LeafMemo::LeafMemo(int players, int slots_log2)
    : players_(players),
      mask_((size_t{1} << slots_log2) - 1),
      slots_(size_t{1} << slots_log2),
      values_(slots_.size() * players) {}

const double* LeafMemo::Find(const Key& key) const {
  const size_t slot = SlotOf(key);
  const Slot& held = slots_[slot];
  return held.used && held.key == key ? &values_[slot * players_] : nullptr;
}

void LeafMemo::Store(const Key& key, const std::vector<double>& values) {
  const size_t slot = SlotOf(key);
  slots_[slot] = {key, true};
  std::copy(values.begin(), values.begin() + players_, values_.begin() + slot * players_);
}

}  // namespace spiel_bounded
