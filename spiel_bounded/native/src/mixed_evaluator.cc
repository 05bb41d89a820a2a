// The weighted mean of two evaluators: the twin of `spiel_bounded.evaluators.mixed`.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "evaluator.h"

namespace spiel_bounded {
namespace {

class MixedEvaluator final : public Evaluator {
 public:
  MixedEvaluator(std::shared_ptr<Evaluator> first, std::shared_ptr<Evaluator> second, double weight,
                 double low, double high)
      : first_(std::move(first)),
        second_(std::move(second)),
        weight_(weight),
        low_(low),
        high_(high) {}

  void StartSearch(const open_spiel::State& root) override {
    first_->StartSearch(root);
    second_->StartSearch(root);
  }

  double Value(const open_spiel::State& state, int player) override {
    return Mix(first_->Value(state, player), second_->Value(state, player));
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    first_->Values(state, out);
    second_->Values(state, second_values_);
    for (size_t player = 0; player < out.size(); ++player) {
      out[player] = Mix(out[player], second_values_[player]);
    }
  }

  // One of the two values the children without building them (a network's sums of the parent's
  // first layer); the other then values each child: the move applied to `parent` and undone
  // where `undo` allows, else a copy.
  bool BeginChildren(open_spiel::State& parent, int player, bool undo) override {
    if (first_->BeginChildren(parent, player, undo)) {
      by_children_ = first_.get();
      built_ = second_.get();
    } else if (second_->BeginChildren(parent, player, undo)) {
      by_children_ = second_.get();
      built_ = first_.get();
    } else {
      return false;
    }
    parent_ = &parent;
    player_ = player;
    undo_ = undo;
    return true;
  }

  LeafValue ChildValue(open_spiel::Action move) override {
    const LeafValue leaf = by_children_->ChildValue(move);
    if (leaf.terminal) return leaf;
    double other;
    if (undo_) {  // the parent is as it was whenever a call returns
      const open_spiel::Player mover = parent_->CurrentPlayer();
      parent_->ApplyAction(move);
      other = built_->Value(*parent_, player_);
      parent_->UndoAction(mover, move);
    } else {
      std::unique_ptr<open_spiel::State> child = parent_->Clone();
      child->ApplyAction(move);
      other = built_->Value(*child, player_);
    }
    return {by_children_ == first_.get() ? Mix(leaf.value, other) : Mix(other, leaf.value), false};
  }

  std::string name() const override { return "mix"; }
  bool ExportsStates() const override {
    return first_->ExportsStates() || second_->ExportsStates();
  }

 private:
  // Clamped, as the Python evaluator is, so that both stay in range whatever the rounding.
  double Mix(double first, double second) const {
    return std::min(high_, std::max(low_, (1.0 - weight_) * first + weight_ * second));
  }

  std::shared_ptr<Evaluator> first_;
  std::shared_ptr<Evaluator> second_;
  double weight_;
  double low_;
  double high_;
  std::vector<double> second_values_;    // reused: no allocation per state
  Evaluator* by_children_ = nullptr;     // the one whose `BeginChildren` returned true
  Evaluator* built_ = nullptr;           // the other
  open_spiel::State* parent_ = nullptr;  // kept alive by the search while it asks for children
  int player_ = 0;
  bool undo_ = false;  // the game's UndoAction restores a state exactly
};

}  // namespace

std::unique_ptr<Evaluator> MakeMixedEvaluator(std::shared_ptr<Evaluator> first,
                                              std::shared_ptr<Evaluator> second, double weight,
                                              double low, double high) {
  return std::make_unique<MixedEvaluator>(std::move(first), std::move(second), weight, low, high);
}

}  // namespace spiel_bounded
