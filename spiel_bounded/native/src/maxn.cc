#include "maxn.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace spiel_bounded {
namespace {

using open_spiel::Action;
using open_spiel::State;
using Vector = std::vector<double>;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr int kNoPlayer = std::numeric_limits<int>::min();  // chance is -1: not a sentinel
constexpr double kSumTolerance = 1e-9;                      // as the Python `_SUM_TOLERANCE`

// What a node's returned vector is, read by its parent from `Engine::status_` after the call
// (the Python `_EXACT`, `_CUT`, `_GRAND`, `_PENDING`).
enum Status { kExact, kCut, kGrand, kPending };

// What a decision node knows of its parent P and grandparent G (the Python `_Context`).
struct Context {
  int parent;
  double parent_best;
  bool last;
  int grand;  // kNoPlayer: none, a chance node between, or a re-search
  double grand_best;
  double parent_best_for_grand;
};

// A child's vector and status from a first pass, for a speculative re-search.
struct Record {
  Vector vector;
  Status status;
};

struct Iteration {
  Action action;
  Vector values;
  std::vector<MaxnChild> children;
  int depth;
  bool horizon;
};

class Engine {
 public:
  Engine(const State& root, Evaluator& evaluator, const MaxnConfig& config, Budget& budget)
      : config_(config),
        evaluator_(evaluator),
        budget_(budget),
        players_(root.NumPlayers()),
        attacker_(config.target >= 0 ? root.CurrentPlayer() : kNoPlayer) {}

  Iteration Root(State& root, int depth);
  std::vector<Action> OrderedMoves(State& state, int player, int depth);

  int64_t evaluations = 0;
  int64_t cutoffs = 0;
  int64_t researches = 0;
  int64_t research_nodes = 0;

 private:
  Vector Value(State& state, int depth, const Context* context);
  Vector ChildValue(State& state, int player, Action action, int depth, const Context* context);
  Vector Decide(State& state, int player, const std::vector<Action>& actions, int depth,
                const Context* context, const std::vector<Record>* first_pass);
  Vector Attack(State& state, int depth);
  double OrderValue(State& state, int player);
  Vector Values(const State& state);
  std::pair<double, double> Limits(int player, const Context* context) const;

  const MaxnConfig& config_;
  Evaluator& evaluator_;
  Budget& budget_;
  const int players_;
  const int attacker_;   // directed offensive: the root player; else kNoPlayer
  int researching_ = 0;  // depth of nested re-searches in progress
  bool horizon_ = false;
  Status status_ = kExact;
};

Vector Engine::Values(const State& state) {
  ++evaluations;
  Vector values;
  evaluator_.Values(state, values);
  if (config_.pruning) {
    // A called-back evaluator was checked in Python already; a C++ one is checked here, so
    // that no evaluator can make a cut unsound.
    const double sum = std::accumulate(values.begin(), values.end(), 0.0);
    const double least = *std::min_element(values.begin(), values.end());
    if (sum > config_.max_sum + kSumTolerance || least < config_.lower - kSumTolerance) {
      std::ostringstream message;
      message << "evaluator '" << evaluator_.name() << "' returned values summing to " << sum
              << " with a least value " << least
              << "; max^n pruning needs a sum <= " << config_.max_sum
              << " and every value >= " << config_.lower;
      throw std::invalid_argument(message.str());
    }
  }
  return values;
}

Vector Engine::Value(State& state, int depth, const Context* context) {
  budget_.Tick();
  if (researching_ > 0) ++research_nodes;
  status_ = kExact;
  if (state.IsTerminal()) return state.Returns();
  if (depth == 0) {
    horizon_ = true;
    return Values(state);
  }
  if (state.IsChanceNode()) {
    Vector total(players_, 0.0);
    for (const auto& [outcome, probability] : state.ChanceOutcomes()) {
      const Vector child = ChildValue(state, open_spiel::kChancePlayerId, outcome, depth, nullptr);
      for (int i = 0; i < players_; ++i) total[i] += probability * child[i];
    }
    status_ = kExact;  // chance children get no context: they are exact
    return total;
  }
  const int player = state.CurrentPlayer();
  if (player == attacker_) return Attack(state, depth);
  return Decide(state, player, OrderedMoves(state, player, depth), depth, context, nullptr);
}

Vector Engine::ChildValue(State& state, int player, Action action, int depth,
                          const Context* context) {
  if (!config_.undo) {
    std::unique_ptr<State> child = state.Child(action);
    return Value(*child, depth, context);
  }
  state.ApplyAction(action);
  Vector vector = Value(state, depth, context);
  state.UndoAction(player, action);
  return vector;
}

Vector Engine::Decide(State& state, int player, const std::vector<Action>& actions, int depth,
                      const Context* context, const std::vector<Record>* first_pass) {
  const auto [shallow, grand] = Limits(player, context);
  const size_t last = actions.size() - 1;
  Vector best;        // empty until the first child that is not set aside
  bool exact = true;  // no child was last-branch pruned
  std::vector<Record> record;
  bool pending = false;
  for (size_t index = 0; index < actions.size(); ++index) {
    Vector child;
    Status status;
    if (first_pass != nullptr && (*first_pass)[index].status != kPending) {
      child = (*first_pass)[index].vector;
      status = (*first_pass)[index].status;
    } else {
      Context child_context;
      const Context* passed = nullptr;
      if (config_.pruning) {
        const bool has_best = !best.empty();
        child_context =
            Context{player,
                    has_best ? best[player] : -kInfinity,
                    index == last,
                    context == nullptr || first_pass != nullptr ? kNoPlayer : context->parent,
                    context == nullptr ? -kInfinity : context->parent_best,
                    !has_best || context == nullptr ? -kInfinity : best[context->parent]};
        passed = &child_context;
      }
      child = ChildValue(state, player, actions[index], depth - 1, passed);
      status = status_;
    }
    if (config_.speculative) record.push_back(Record{child, status});
    if (status == kPending) {
      pending = true;
      continue;
    }
    if (status == kGrand) exact = false;
    if (best.empty() || child[player] > best[player]) {
      best = std::move(child);
      if (best[player] >= shallow) {
        ++cutoffs;
        status_ = kCut;
        return best;
      }
      if (best[player] >= grand) {
        ++cutoffs;
        status_ = config_.speculative ? kPending : kGrand;
        return best;
      }
    }
  }
  status_ = exact ? kExact : kCut;
  if (pending) {
    if (best[context->parent] <= context->parent_best) {
      // The parent keeps an earlier child whatever the pruned children hold.
      status_ = kCut;
      return best;
    }
    ++researches;
    ++researching_;
    best = Decide(state, player, actions, depth, context, &record);
    --researching_;
  }
  return best;
}

Vector Engine::Attack(State& state, int depth) {
  const int target = config_.target;
  const int player = state.CurrentPlayer();
  Vector best;
  for (Action action : state.LegalActions()) {
    Vector child = ChildValue(state, player, action, depth - 1, nullptr);
    if (best.empty() || child[target] < best[target]) best = std::move(child);
  }
  status_ = kExact;
  return best;
}

std::vector<Action> Engine::OrderedMoves(State& state, int player, int depth) {
  std::vector<Action> actions = state.LegalActions();
  if (!config_.ordering || depth < 2 || actions.size() < 2) return actions;
  std::vector<double> keys;
  keys.reserve(actions.size());
  for (Action action : actions) {
    if (config_.undo) {
      state.ApplyAction(action);
      keys.push_back(OrderValue(state, player));
      state.UndoAction(player, action);
    } else {
      std::unique_ptr<State> child = state.Child(action);
      keys.push_back(OrderValue(*child, player));
    }
  }
  std::vector<size_t> order(actions.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&keys](size_t a, size_t b) { return keys[a] > keys[b]; });
  std::vector<Action> ordered;
  ordered.reserve(actions.size());
  for (size_t index : order) ordered.push_back(actions[index]);
  return ordered;
}

double Engine::OrderValue(State& state, int player) {
  if (state.IsTerminal()) return state.PlayerReturn(player);
  if (state.IsChanceNode()) return config_.pruning ? config_.max_sum / players_ : 0.0;
  return Values(state)[player];
}

std::pair<double, double> Engine::Limits(int player, const Context* context) const {
  if (!config_.pruning || context == nullptr || context->parent == player) {
    return {kInfinity, kInfinity};
  }
  const double lower = config_.lower, max_sum = config_.max_sum;
  const int n = players_;
  const double shallow = max_sum - (n - 2) * lower - context->parent_best;  // Korf
  const int grand = context->grand;
  if (!config_.last_branch || grand == kNoPlayer || grand == player || grand == context->parent ||
      context->parent_best_for_grand > context->grand_best ||
      !(config_.speculative || context->last)) {
    return {shallow, kInfinity};
  }
  return {shallow, max_sum - (n - 3) * lower - context->parent_best - context->grand_best};
}

Iteration Engine::Root(State& root, int depth) {
  horizon_ = false;
  const int player = root.CurrentPlayer();
  const int target = config_.target;
  const double lower = config_.pruning ? config_.lower : config_.min_utility;
  const std::vector<Action> moves = OrderedMoves(root, player, depth);
  const size_t last = moves.size() - 1;
  std::vector<MaxnChild> children;
  Action chosen_move = moves[0];
  Vector chosen;
  for (size_t index = 0; index < moves.size(); ++index) {
    const Action move = moves[index];
    Context context;
    const Context* passed = nullptr;
    if (config_.pruning) {
      const double best = chosen.empty() ? -kInfinity : chosen[player];
      context = Context{player, best, index == last, kNoPlayer, -kInfinity, -kInfinity};
      passed = &context;
    }
    Vector vector = ChildValue(root, player, move, depth - 1, passed);
    const double value = vector[player];
    if (status_ != kExact) {  // a pruned child: the mover gets no more than its best so far
      children.push_back(MaxnChild{move, lower, chosen[player]});
      continue;
    }
    children.push_back(MaxnChild{move, value, value});
    if (chosen.empty() ||
        (target >= 0 ? vector[target] < chosen[target] : vector[player] > chosen[player])) {
      chosen_move = move;
      chosen = std::move(vector);
    }
  }
  // In legal order, as the Python engine reports them.
  std::vector<MaxnChild> in_order;
  for (Action move : root.LegalActions()) {
    for (const MaxnChild& child : children) {
      if (child.action == move) in_order.push_back(child);
    }
  }
  return Iteration{chosen_move, std::move(chosen), std::move(in_order), depth, horizon_};
}

}  // namespace

MaxnOutcome MaxnSearch(const State& root, Evaluator& evaluator, const MaxnConfig& config,
                       Budget& budget) {
  evaluator.StartSearch(root);
  Engine engine(root, evaluator, config, budget);
  // Searched on a copy: with `undo` the engine changes the state, and a stopped search leaves
  // it mid-line.
  const std::unique_ptr<State> state = root.Clone();
  std::unique_ptr<Iteration> best;
  MaxnOutcome outcome;
  try {
    for (int depth = 1; depth <= config.final_depth; ++depth) {
      budget.Tick();
      best = std::make_unique<Iteration>(engine.Root(*state, depth));
      if (!best->horizon) {
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
  outcome.researches = engine.researches;
  outcome.research_nodes = engine.research_nodes;
  if (best == nullptr) return outcome;
  outcome.completed = true;
  outcome.depth = best->depth;
  outcome.action = best->action;
  outcome.values = std::move(best->values);
  outcome.horizon = best->horizon;
  outcome.children = std::move(best->children);
  return outcome;
}

}  // namespace spiel_bounded
