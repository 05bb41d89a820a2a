#include "child_sums.h"

#include <algorithm>

namespace spiel_bounded {

ChildSums::ChildSums(const open_spiel::Game& game, const DenseLayer& first,
                     open_spiel::Observation& observation, const float* observed)
    : first_(first),
      observation_(observation),
      observed_(observed),
      size_(game.ObservationTensorSize()),
      limit_(std::max(4, size_ / 4)),
      exact_(first.ExactSums()),
      bases_(game.NumPlayers()),
      rows_(2 * size_ + 1),
      xs_(2 * size_ + 1) {
  for (Base& base : bases_) {
    base.observation.resize(size_);
    base.sum.resize(first.outputs());
  }
}

void ChildSums::StartSearch(const open_spiel::State& /*root*/) {
  for (Base& base : bases_) base.ready = base.held = false;
}

void ChildSums::Begin(const open_spiel::State& parent) {
  parent_ = &parent;
  for (Base& base : bases_) base.ready = false;
}

const open_spiel::State* ChildSums::Child(open_spiel::Action move, double* sum) {
  child_ = parent_->Child(move);
  const int mover = child_->CurrentPlayer();
  if (child_->IsTerminal() || mover < 0 || mover >= static_cast<int>(bases_.size())) {
    return child_.get();
  }
  const Base& base = Observed(mover);
  observation_.SetFrom(*child_, mover);
  const int count = Changes(base.observation.data(), mover);
  first_.Add(base.sum.data(), sum, rows_.data(), xs_.data(), count);
  return nullptr;
}

ChildSums::Base& ChildSums::Observed(int observer) {
  Base& base = bases_[observer];
  if (base.ready) return base;
  observation_.SetFrom(*parent_, observer);
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
}

// The observation `observed_` and its sum made afresh into `base`.
void ChildSums::Refresh(Base& base) {
  std::copy(observed_, observed_ + size_, base.observation.begin());
  first_.Start(base.sum.data());
  first_.AddNonZero(base.sum.data(), observed_, size_, 0);
}

// The terms that bring a sum over the observation `before` to one over `observed_`, into `rows_`
// and `xs_` in the order of the entries; their count. With `mover` >= 0, the mover's bit last;
// -1 (and no terms) where an entry changes from or to a value other than 0 and 1 while `mover`
// < 0 (a parent's sum kept up to date must stay exact).
int ChildSums::Changes(const float* before, int mover) {
  int count = 0;
  for (int i = 0; i < size_; ++i) {
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
  if (mover >= 0) {
    rows_[count] = size_ + mover;
    xs_[count++] = 1.0f;
  }
  return count;
}

}  // namespace spiel_bounded
