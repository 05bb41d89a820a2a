// The transposition table of bound intervals: the native twin of `spiel_bounded.search.tt`.
#pragma once

#include <cstdint>
#include <vector>

#include "keys.h"

namespace spiel_bounded {

struct Interval {
  double lower;
  double upper;
};

constexpr int32_t kNoMove = -1;  // OpenSpiel's actions are >= 0
constexpr uint32_t kNoOutcomes = 0xffffffffu;

// Searched with `depth` plies left, the node's value lies in [lower, upper] and `move` was its
// best (or cutting) move; `horizon` says whether the evaluator was called below it. A chance
// node's entry also keeps its outcomes' bounds (`outcomes` indexes the table's pool).
struct TableEntry {
  Key key;
  double lower;
  double upper;
  int32_t move;  // num_distinct_actions() < 2^31 in every game (checked by the search)
  uint32_t outcomes;
  int32_t depth;
  bool horizon;
  bool used;
};

// Whether `entry`'s bounds hold for the depth-limited value with `depth` plies left.
inline bool Usable(const TableEntry& entry, int depth) {
  return entry.depth == depth || (!entry.horizon && entry.depth <= depth);
}

// Open addressing over 128-bit keys, 48 bytes a slot. The table holds at most `capacity`
// entries in `ceil(capacity / 0.7) + 1` slots, and starts at that count halved as often as it
// stays at least 1024, doubling from there: at its peak (the last doubling, old slots still alive)
// a table costs about 1.5 * 48 / 0.7 = 103 bytes an entry (102 measured,
// results/bench_memory.md). Like the Python table it refuses new keys when
// full (every stored interval stays valid and the search deterministic) and intersects the
// intervals of a key stored twice at the same depth.
class IntervalTable {
 public:
  explicit IntervalTable(int64_t capacity);

  // The entry of `key`, or nullptr. The pointer is valid until the next `Store`.
  const TableEntry* Find(const Key& key) const;

  // The outcome bounds of a chance node's entry (`count` of them).
  const Interval* Outcomes(const TableEntry& entry) const { return &pool_[entry.outcomes]; }

  void Store(const Key& key, double lower, double upper, int depth, int32_t move, bool horizon,
             const std::vector<Interval>* outcomes = nullptr);

  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }

 private:
  size_t SlotOf(const Key& key) const;
  void Grow();

  int64_t capacity_;
  size_t full_slots_;  // the slot count once `capacity_` entries may be held
  int growths_left_;   // left to `full_slots_`: the slot count is that halved this often
  int64_t size_ = 0;
  std::vector<TableEntry> slots_;
  std::vector<Interval> pool_;
};

}  // namespace spiel_bounded
