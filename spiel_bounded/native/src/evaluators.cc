#include <algorithm>
#include <random>
#include <utility>

#include "evaluator.h"

namespace spiel_bounded {
namespace {

class ConstantEvaluator final : public Evaluator {
 public:
  explicit ConstantEvaluator(std::vector<double> values) : values_(std::move(values)) {}
  double Value(const open_spiel::State&, int player) override { return values_[player]; }
  std::string name() const override { return "zero"; }

 private:
  std::vector<double> values_;
};

class RolloutEvaluator final : public Evaluator {
 public:
  RolloutEvaluator(int playouts, uint64_t seed, double low, double high)
      : playouts_(playouts), low_(low), high_(high), rng_(seed) {}

  double Value(const open_spiel::State& state, int player) override {
    double total = 0.0;
    for (int i = 0; i < playouts_; ++i) total += Playout(state)->PlayerReturn(player);
    return std::min(high_, std::max(low_, total / playouts_));
  }

  // Every player's mean return over the same playouts (a constant-sum game's values keep its
  // sum, which max^n's pruning relies on).
  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    out.assign(state.NumPlayers(), 0.0);
    for (int i = 0; i < playouts_; ++i) {
      const std::vector<double> returns = Playout(state)->Returns();
      for (size_t player = 0; player < out.size(); ++player) out[player] += returns[player];
    }
    for (double& value : out) value = std::min(high_, std::max(low_, value / playouts_));
  }

  std::string name() const override { return "rollout"; }

 private:
  // `state` played to its end by uniformly random moves and chance outcomes drawn by their
  // probabilities.
  std::unique_ptr<open_spiel::State> Playout(const open_spiel::State& state) {
    std::unique_ptr<open_spiel::State> playout = state.Clone();
    while (!playout->IsTerminal()) {
      if (playout->IsChanceNode()) {
        const double draw = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
        playout->ApplyAction(open_spiel::SampleAction(playout->ChanceOutcomes(), draw).first);
      } else {
        const std::vector<open_spiel::Action> actions = playout->LegalActions();
        std::uniform_int_distribution<size_t> pick(0, actions.size() - 1);
        playout->ApplyAction(actions[pick(rng_)]);
      }
    }
    return playout;
  }

  int playouts_;
  double low_;
  double high_;
  std::mt19937_64 rng_;
};

class CallbackEvaluator final : public Evaluator {
 public:
  CallbackEvaluator(std::function<double(const open_spiel::State&, int)> value, std::string name)
      : value_(std::move(value)), name_(std::move(name)) {}
  double Value(const open_spiel::State& state, int player) override {
    return value_(state, player);
  }
  std::string name() const override { return name_; }
  bool ExportsStates() const override { return true; }

 private:
  std::function<double(const open_spiel::State&, int)> value_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Evaluator> MakeConstantEvaluator(std::vector<double> values) {
  return std::make_unique<ConstantEvaluator>(std::move(values));
}

std::unique_ptr<Evaluator> MakeRolloutEvaluator(int playouts, uint64_t seed, double low,
                                                double high) {
  return std::make_unique<RolloutEvaluator>(playouts, seed, low, high);
}

std::unique_ptr<Evaluator> MakeCallbackEvaluator(
    std::function<double(const open_spiel::State&, int)> value, std::string name) {
  return std::make_unique<CallbackEvaluator>(std::move(value), std::move(name));
}

}  // namespace spiel_bounded
