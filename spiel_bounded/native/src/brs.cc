#include "brs.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>

namespace spiel_bounded {
namespace {

using open_spiel::Action;
using open_spiel::State;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kInvalid = kInfinity;  // a path without a searched opponent: never taken

// Hashes a history for the preferred-move memo (keys are compared in full).
struct HistoryHash {
  size_t operator()(const std::vector<Action>& history) const {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (Action action : history) {
      hash ^= static_cast<uint64_t>(action);
      hash *= 0x100000001b3ull;
    }
    return static_cast<size_t>(hash);
  }
};

class Engine {
 public:
  Engine(const State& root, Evaluator& evaluator, const BrsConfig& config, Budget& budget)
      : config_(config), evaluator_(evaluator), budget_(budget), root_(root.CurrentPlayer()) {}

  double Value(State& state, int depth, double alpha, double beta, bool in_segment, bool searched);
  // The value of the child `action` leads to (`player` moved).
  double ChildValue(State& state, int player, Action action, int depth, double alpha, double beta,
                    bool in_segment, bool searched);

  int64_t evaluations = 0;
  int64_t cutoffs = 0;
  bool horizon = false;

 private:
  double RootValue(const State& state) {
    ++evaluations;
    evaluator_.Values(state, values_);
    return values_[root_];
  }
  Action Preferred(State& state);
  Action ChoosePreferred(State& state);
  double PreferenceOf(const State& child, int player);

  const BrsConfig& config_;
  Evaluator& evaluator_;
  Budget& budget_;
  const int root_;
  std::vector<double> values_;  // reused by every evaluation
  std::unordered_map<std::vector<Action>, Action, HistoryHash> preferred_;
};

double Engine::PreferenceOf(const State& child, int player) {
  // Chance nodes included: the evaluator values them too.
  if (child.IsTerminal()) return child.PlayerReturn(player);
  ++evaluations;
  evaluator_.Values(child, values_);
  return values_[player];
}

Action Engine::ChoosePreferred(State& state) {
  const int player = state.CurrentPlayer();
  Action best_action = -1;
  double best_value = -kInfinity;
  for (Action action : state.LegalActions()) {
    budget_.Tick();  // each child is a node: a node budget bounds this work too
    double value;
    if (config_.undo) {
      state.ApplyAction(action);
      value = PreferenceOf(state, player);
      state.UndoAction(player, action);
    } else {
      value = PreferenceOf(*state.Child(action), player);
    }
    if (value > best_value) {
      best_action = action;
      best_value = value;
    }
  }
  return best_action;
}

Action Engine::Preferred(State& state) {
  std::vector<Action> key = state.History();
  auto found = preferred_.find(key);
  if (found != preferred_.end()) return found->second;
  const Action action = ChoosePreferred(state);
  preferred_.emplace(std::move(key), action);
  return action;
}

double Engine::ChildValue(State& state, int player, Action action, int depth, double alpha,
                          double beta, bool in_segment, bool searched) {
  if (!config_.undo) {
    std::unique_ptr<State> child = state.Child(action);
    return Value(*child, depth, alpha, beta, in_segment, searched);
  }
  state.ApplyAction(action);
  const double value = Value(state, depth, alpha, beta, in_segment, searched);
  state.UndoAction(player, action);
  return value;
}

double Engine::Value(State& state, int depth, double alpha, double beta, bool in_segment,
                     bool searched) {
  budget_.Tick();
  if (state.IsTerminal()) return state.PlayerReturn(root_);
  if (state.IsChanceNode()) {
    double total = 0.0;
    for (const auto& [outcome, probability] : state.ChanceOutcomes()) {
      total += probability * ChildValue(state, open_spiel::kChancePlayerId, outcome, depth,
                                        -kInfinity, kInfinity, in_segment, searched);
    }
    return total;
  }
  const int player = state.CurrentPlayer();
  if (player == root_) {
    if (in_segment && !searched) return kInvalid;
    if (depth == 0) {
      horizon = true;
      return RootValue(state);
    }
    double best = -kInfinity;
    for (Action action : state.LegalActions()) {
      const double value = ChildValue(state, player, action, depth - 1, alpha, beta, false, false);
      best = std::max(best, value);
      alpha = std::max(alpha, value);
      if (alpha >= beta) {
        ++cutoffs;
        break;
      }
    }
    return best;
  }
  if (depth == 0) {
    horizon = true;
    return RootValue(state);
  }
  if (searched) {  // another opponent already replied: this one plays its preferred move
    return ChildValue(state, player, Preferred(state), depth - 1, alpha, beta, true, true);
  }
  // Either this opponent is the searched one, or it plays its preferred move and the choice
  // passes to the next opponent.
  double best = ChildValue(state, player, Preferred(state), depth - 1, alpha, beta, true, false);
  beta = std::min(beta, best);
  if (alpha >= beta) {
    ++cutoffs;
    return best;
  }
  for (Action action : state.LegalActions()) {
    const double value = ChildValue(state, player, action, depth - 1, alpha, beta, true, true);
    best = std::min(best, value);
    beta = std::min(beta, value);
    if (alpha >= beta) {
      ++cutoffs;
      break;
    }
  }
  return best;
}

}  // namespace

BrsOutcome BrsSearch(const State& root, Evaluator& evaluator, const BrsConfig& config,
                     Budget& budget) {
  evaluator.StartSearch(root);
  Engine engine(root, evaluator, config, budget);
  const std::unique_ptr<State> state = root.Clone();  // `undo` changes it
  const int player = root.CurrentPlayer();
  const std::vector<Action> moves = root.LegalActions();
  BrsOutcome outcome;
  try {
    for (int depth = 1; depth <= config.final_depth; ++depth) {
      budget.Tick();
      engine.horizon = false;
      std::vector<BrsChild> children;
      Action chosen = -1;
      double chosen_value = 0.0;
      for (Action move : moves) {
        const double alpha = chosen < 0 ? -kInfinity : chosen_value;
        const double value =
            engine.ChildValue(*state, player, move, depth - 1, alpha, kInfinity, false, false);
        if (chosen < 0 || value > chosen_value) {
          chosen = move;
          chosen_value = value;
          children.push_back(BrsChild{move, value, value});
        } else {  // failed low: at most the best so far
          children.push_back(BrsChild{move, config.min_utility, std::min(value, chosen_value)});
        }
      }
      outcome.completed = true;
      outcome.depth = depth;
      outcome.action = chosen;
      outcome.value = chosen_value;
      outcome.horizon = engine.horizon;
      outcome.children = std::move(children);
      if (!engine.horizon) {
        outcome.stopped_by = "solved";
        break;
      }
    }
  } catch (const SearchStopped& stop) {
    outcome.stopped_by = stop.reason == StopReason::kNodes ? "nodes" : "seconds";
  }
  outcome.seconds = budget.Elapsed();
  outcome.nodes = budget.nodes();
  outcome.evaluations = engine.evaluations;
  outcome.cutoffs = engine.cutoffs;
  return outcome;
}

}  // namespace spiel_bounded
