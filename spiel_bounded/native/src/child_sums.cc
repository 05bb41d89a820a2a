#include "child_sums.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace spiel_bounded {
namespace {

// Entries compared a block at a time: a child's observation is mostly its parent's, so most
// blocks are equal bit for bit and are passed over by a few word comparisons.
constexpr int kBlock = 16;

// Whether `count` <= kBlock floats from `a` and `b` have the same bits (equal bits: equal values,
// for observations hold no NaN; -0 against 0 is left to the entry by entry comparison).
bool SameBits(const float* a, const float* b, int count) {
  if (count < kBlock) return std::memcmp(a, b, sizeof(float) * count) == 0;
  uint64_t differ = 0;
  for (int k = 0; k < kBlock; k += 2) {
    uint64_t x, y;
    std::memcpy(&x, a + k, sizeof x);
    std::memcpy(&y, b + k, sizeof y);
    differ |= x ^ y;
  }
  return differ == 0;
}

void Toggle(Key& key, const Key& entry) {
  key.high ^= entry.high;
  key.low ^= entry.low;
}

}  // namespace

ChildSums::ChildSums(const open_spiel::Game& game, const DenseLayer& first, Features& features,
                     const InputPlanes* planes)
    : first_(first),
      features_(features),
      observed_(features.observed()),
      size_(game.ObservationTensorSize()),
      limit_(std::max(4, size_ / 4)),
      exact_(first.ExactSums()),
      bases_(game.NumPlayers()),
      // A placement child's derived inputs come from its parent's board: threat planes only.
      placement_(planes == nullptr || dynamic_cast<const ThreatPlanes*>(planes) != nullptr
                     ? Placement::Of(game, features.observation(), observed_)
                     : std::nullopt),
      keyed_(placement_.has_value() && exact_),
      rows_(2 * size_ + 1),
      xs_(2 * size_ + 1),
      planes_(planes),
      threats_(dynamic_cast<const ThreatPlanes*>(planes)),
      territory_(dynamic_cast<const TerritoryPlanes*>(planes)),
      plane_offset_(size_ + game.NumPlayers() + 1),
      diff_planes_(planes != nullptr && !placement_.has_value()) {
  if (planes_ != nullptr) {
    plane_rows_.resize(planes_->size());  // at most one term an entry
    plane_xs_.assign(planes_->size(), 1.0f);
    entries_.resize(planes_->size());
    bits_.resize((planes_->size() + 63) / 64);
  }
  for (Base& base : bases_) {
    base.observation.resize(size_);
    base.sum.resize(first.outputs());
  }
  if (keyed_) {
    // The key of a 1 in the first layer's input entry `row`: a set of them keys as the XOR.
    for (int64_t row = 0; row < first.inputs(); ++row) {
      entry_keys_.push_back(Hash128(reinterpret_cast<const char*>(&row), sizeof row));
    }
  }
  if (placement_.has_value()) {
    features_.ObserveAs(*game.NewInitialState(), 0);
    empty_board_.assign(observed_, observed_ + size_);
  }
}

void ChildSums::StartSearch(const open_spiel::State& root) {
  for (Base& base : bases_) base.ready = base.held = false;
  played_.clear();
  from_history_ = false;
  if (!placement_.has_value() || !exact_) return;
  // A state built from a board has no history: boards follow histories when the root's does
  // (then every state below it does too, a child's board being its parent's plus the move).
  std::vector<float> board = empty_board_;
  if (placement_->Follow({}, root.FullHistory(), board.data(), rows_.data(), xs_.data(),
                         static_cast<int>(rows_.size())) < 0) {
    return;
  }
  features_.ObserveAs(root, 0);
  from_history_ = std::equal(board.begin(), board.end(), observed_);
}

void ChildSums::Begin(open_spiel::State& parent, bool undo) {
  parent_ = &parent;
  undo_ = undo;
  mover_ = parent.CurrentPlayer();
  for (Base& base : bases_) base.ready = false;
  if (!placement_.has_value()) return;
  // The observation is the same whoever observes: one base serves all movers.
  Base& base = bases_[0];
  if (base.held && from_history_) {
    // The board follows the moves (a board partly changed by a failed `Follow` is made afresh).
    const int count = placement_->Follow(played_, parent.FullHistory(), base.observation.data(),
                                         rows_.data(), xs_.data(), limit_);
    if (count >= 0) {
      first_.Add(base.sum.data(), base.sum.data(), rows_.data(), xs_.data(), count);
      // Each term flips one 0-or-1 entry: its key toggles in or out of the set's.
      if (keyed_) {
        for (int k = 0; k < count; ++k) Toggle(base.key, entry_keys_[rows_[k]]);
      }
    } else {
      features_.ObserveAs(parent, mover_);
      Refresh(base);
      RefreshKey(base);
    }
  } else {
    features_.ObserveAs(parent, mover_);
    Update(base);
    RefreshKey(base);
  }
  if (from_history_) played_ = parent.FullHistory();
  base.ready = base.held = true;
  placement_->Begin(base.observation.data(), mover_);
  if (threats_ != nullptr) parent_stones_ = threats_->Read(base.observation.data());
}

const open_spiel::State* ChildSums::Prepare(open_spiel::Action move) {
  const int mover_bit = size_ + 1 - mover_;  // the next player's bit
  if (placement_.has_value()) {
    const std::optional<Placement::Change> change = placement_->Child(move);
    if (!change.has_value()) {
      child_ = parent_->Child(move);
      return child_.get();
    }
    // In the order of the entries, as `Changes` gives them.
    const bool ascending = change->emptied < change->filled;
    placement_rows_[0] = ascending ? change->emptied : change->filled;
    placement_rows_[1] = ascending ? change->filled : change->emptied;
    placement_rows_[2] = mover_bit;
    placement_xs_[0] = ascending ? -1.0f : 1.0f;
    placement_xs_[1] = ascending ? 1.0f : -1.0f;
    placement_xs_[2] = 1.0f;
    prepared_base_ = &bases_[0];
    count_ = -1;
    if (threats_ != nullptr) {
      // The piece fills the cell it empties, in the mover's plane.
      ThreatPlanes::Stones stones = parent_stones_;
      const uint64_t cell = uint64_t{1} << (change->emptied % threats_->cells());
      stones.empty &= ~cell;
      stones.pieces[mover_] |= cell;
      plane_count_ = threats_->StoneEntries(stones, plane_offset_, plane_rows_.data());
    }
    if (keyed_) {
      child_key_ = bases_[0].key;
      for (const int row : placement_rows_) Toggle(child_key_, entry_keys_[row]);
    }
    return nullptr;
  }
  if (!undo_) {
    child_ = parent_->Child(move);
    return PrepareChild(*child_) ? nullptr : child_.get();
  }
  parent_->ApplyAction(move);
  const int mover = parent_->CurrentPlayer();
  if (parent_->IsTerminal() || mover < 0 || mover >= static_cast<int>(bases_.size())) {
    child_ = parent_->Clone();
    parent_->UndoAction(mover_, move);
    return child_.get();
  }
  if (!bases_[mover].ready) {
    parent_->UndoAction(mover_, move);  // the parent as the child's mover sees it, first
    Observed(mover);
    parent_->ApplyAction(move);
  }
  PrepareChild(*parent_);
  parent_->UndoAction(mover_, move);
  return nullptr;
}

// The sums of `child`, a child of the parent, come next; false (nothing prepared) where it is
// terminal or not a decision node.
bool ChildSums::PrepareChild(const open_spiel::State& child) {
  const int mover = child.CurrentPlayer();
  if (child.IsTerminal() || mover < 0 || mover >= static_cast<int>(bases_.size())) return false;
  prepared_base_ = &Observed(mover);
  features_.ObserveAs(child, mover);
  count_ = Changes(prepared_base_->observation.data(), mover);
  if (diff_planes_) {
    PlaneBits();
    plane_count_ = PlaneChanges(prepared_base_->planes);
  }
  return true;
}

void ChildSums::Sum(double* sum) const {
  if (count_ < 0) {
    first_.Add(prepared_base_->sum.data(), sum, placement_rows_, placement_xs_, 3);
  } else {
    first_.Add(prepared_base_->sum.data(), sum, rows_.data(), xs_.data(), count_);
  }
  if (planes_ != nullptr) {
    first_.Add(sum, sum, plane_rows_.data(), plane_xs_.data(), plane_count_);
  }
}

ChildSums::Base& ChildSums::Observed(int observer) {
  Base& base = bases_[observer];
  if (base.ready) return base;
  features_.ObserveAs(*parent_, observer);
  Update(base);
  base.ready = base.held = true;
  return base;
}

// `base` brought to the observation `observed_`. Where the sums are exact, the sum of the parent
// it last observed is brought up to date by the entries that differ when they are few and 0 or 1
// (consecutive parents in a search are a few moves apart): the same sum as made afresh.
void ChildSums::Update(Base& base) {
  const int count = base.held && exact_ ? Changes(base.observation.data(), -1) : -1;
  if (count < 0 || count > limit_) return Refresh(base);
  first_.Add(base.sum.data(), base.sum.data(), rows_.data(), xs_.data(), count);
  std::copy(observed_, observed_ + size_, base.observation.begin());
  if (diff_planes_) UpdatePlanes(base);
}

// `base.planes` and their share of its sum brought to the observation `observed_`.
void ChildSums::UpdatePlanes(Base& base) {
  PlaneBits();
  const int terms = PlaneChanges(base.planes);
  first_.Add(base.sum.data(), base.sum.data(), plane_rows_.data(), plane_xs_.data(), terms);
  base.planes = bits_;
}

// The observation `observed_` and its sum made afresh into `base`.
void ChildSums::Refresh(Base& base) {
  std::copy(observed_, observed_ + size_, base.observation.begin());
  first_.Start(base.sum.data());
  first_.AddNonZero(base.sum.data(), observed_, size_, 0);
  if (diff_planes_) {
    base.planes.assign(bits_.size(), 0);
    UpdatePlanes(base);
  }
}

// `base.key` made afresh from its observation, where `keyed_`.
void ChildSums::RefreshKey(Base& base) const {
  if (!keyed_) return;
  base.key = Key{};
  for (int i = 0; i < size_; ++i) {
    if (base.observation[i] != 0.0f) Toggle(base.key, entry_keys_[i]);
  }
}

// The terms that bring a sum over the observation `before` to one over `observed_`, into `rows_`
// and `xs_` in the order of the entries; their count. With `mover` >= 0, the mover's bit last;
// -1 (and no terms) where an entry changes from or to a value other than 0 and 1 while `mover`
// < 0 (a parent's sum kept up to date must stay exact).
int ChildSums::Changes(const float* before, int mover) {
  int count = 0;
  for (int block = 0; block < size_; block += kBlock) {
    const int end = std::min(size_, block + kBlock);
    if (SameBits(observed_ + block, before + block, end - block)) continue;
    for (int i = block; i < end; ++i) {
      if (observed_[i] == before[i]) continue;
      if (mover < 0 && ((before[i] != 0.0f && before[i] != 1.0f) ||
                        (observed_[i] != 0.0f && observed_[i] != 1.0f))) {
        return -1;
      }
      if (before[i] != 0.0f) {
        rows_[count] = i;
        xs_[count++] = -before[i];
      }
      if (observed_[i] != 0.0f) {
        rows_[count] = i;
        xs_[count++] = observed_[i];
      }
    }
  }
  if (mover >= 0) {
    rows_[count] = size_ + mover;
    xs_[count++] = 1.0f;
  }
  return count;
}

// The derived inputs of `observed_` into `bits_`.
void ChildSums::PlaneBits() {
  if (territory_ != nullptr) return territory_->EntryBits(observed_, bits_.data());
  std::fill(bits_.begin(), bits_.end(), uint64_t{0});
  const int count = planes_->Entries(observed_, 0, entries_.data());
  for (int k = 0; k < count; ++k) bits_[entries_[k] / 64] |= uint64_t{1} << (entries_[k] % 64);
}

// The terms that bring a sum over the derived inputs `before` to one over `bits_` (both packed
// bits) into `plane_rows_` and `plane_xs_`: -1 for each entry only in `before`, +1 for each only
// in `bits_`; their count.
int ChildSums::PlaneChanges(const std::vector<uint64_t>& before) {
  int terms = 0;
  for (size_t word = 0; word < bits_.size(); ++word) {
    for (uint64_t differ = bits_[word] ^ before[word]; differ != 0; differ &= differ - 1) {
      const int bit = __builtin_ctzll(differ);
      plane_rows_[terms] = plane_offset_ + static_cast<int>(64 * word) + bit;
      plane_xs_[terms++] = (bits_[word] >> bit) & 1 ? 1.0f : -1.0f;
    }
  }
  return terms;
}

}  // namespace spiel_bounded
