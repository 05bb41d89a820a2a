#include "interval_table.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace spiel_bounded {
namespace {
constexpr size_t kFirstSlots = 1024;
// Grow past this load.
constexpr double kMaxLoad = 0.7;

size_t FullSlots(int64_t capacity) {
  return static_cast<size_t>(std::ceil(static_cast<double>(capacity) / kMaxLoad)) + 1;
}

int Halvings(size_t full_slots) {
  int halvings = 0;
  while ((full_slots >> (halvings + 1)) >= kFirstSlots) ++halvings;
  return halvings;
}
}  // namespace

static_assert(sizeof(TableEntry) == 48, "a table slot is 48 bytes");

IntervalTable::IntervalTable(int64_t capacity) : capacity_(capacity) {
  if (capacity < 1) {
    throw std::invalid_argument("transposition table capacity must be >= 1, got " +
                                std::to_string(capacity));
  }
  full_slots_ = FullSlots(capacity);
  growths_left_ = Halvings(full_slots_) + 1;  // the first `Grow` makes the first slots
}

size_t IntervalTable::SlotOf(const Key& key) const {
  // Slot counts are not powers of two: the key's low half (uniform) is mapped onto them by a
  // multiplication (Lemire's fast range reduction).
  const size_t slots = slots_.size();
  size_t slot = static_cast<size_t>((static_cast<unsigned __int128>(key.low) * slots) >> 64);
  while (slots_[slot].used && slots_[slot].key != key) {
    if (++slot == slots) slot = 0;
  }
  return slot;
}

const TableEntry* IntervalTable::Find(const Key& key) const {
  if (slots_.empty()) return nullptr;
  const TableEntry& entry = slots_[SlotOf(key)];
  return entry.used ? &entry : nullptr;
}

void IntervalTable::Grow() {
  if (growths_left_ == 0)
    return;  // at `full_slots_`: never fuller than `capacity_` / `full_slots_`
  --growths_left_;
  std::vector<TableEntry> old(full_slots_ >> growths_left_);
  old.swap(slots_);
  for (const TableEntry& entry : old) {
    if (entry.used) slots_[SlotOf(entry.key)] = entry;
  }
}

void IntervalTable::Store(const Key& key, double lower, double upper, int depth, int32_t move,
                          bool horizon, const std::vector<Interval>* outcomes) {
  if (slots_.empty()) Grow();
  size_t slot = SlotOf(key);
  if (!slots_[slot].used) {
    if (size_ >= capacity_) return;
    if (static_cast<double>(size_ + 1) > kMaxLoad * static_cast<double>(slots_.size())) {
      Grow();
      slot = SlotOf(key);
    }
    slots_[slot] = TableEntry{key, 0.0, 0.0, kNoMove, kNoOutcomes, 0, false, false};
    ++size_;
  } else if (slots_[slot].depth == depth) {
    // Both intervals bound the same value, so their intersection does too; it holds beyond
    // this depth only if neither search met the horizon.
    const TableEntry& old = slots_[slot];
    lower = std::max(lower, old.lower);
    upper = std::min(upper, old.upper);
    horizon = horizon || old.horizon;
    if (move == kNoMove) move = old.move;
  }
  TableEntry& entry = slots_[slot];
  entry.lower = lower;
  entry.upper = upper;
  entry.depth = depth;
  entry.move = move;
  entry.horizon = horizon;
  entry.used = true;
  if (outcomes != nullptr) {
    // The key names the state, so a chance node always has the same number of outcomes: its
    // block in the pool is reused.
    if (entry.outcomes == kNoOutcomes) {
      entry.outcomes = static_cast<uint32_t>(pool_.size());
      pool_.insert(pool_.end(), outcomes->begin(), outcomes->end());
    } else {
      std::copy(outcomes->begin(), outcomes->end(), pool_.begin() + entry.outcomes);
    }
  }
}

}  // namespace spiel_bounded
