#include "alphabeta.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "interval_table.h"
#include "twins.h"

namespace spiel_bounded {
namespace {

using open_spiel::Action;
using open_spiel::State;

constexpr int64_t kHistoryLimit = int64_t{1} << 30;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Bounds {
  double lower;
  double upper;
};

struct Iteration {
  int depth;
  double lower;
  double upper;
  std::vector<RootChild> children;
  std::vector<Action> order;
  bool horizon;
};

// sum_j p_j * values[j], accumulated in outcome order like OpenSpiel's expectiminimax.
double Weighted(const open_spiel::ActionsAndProbs& outcomes, const std::vector<double>& values) {
  double total = 0.0;
  for (size_t j = 0; j < outcomes.size(); ++j) total += outcomes[j].second * values[j];
  return total;
}

// `moves` by decreasing `score`, ties in their order: std::stable_sort, but by insertion (no
// buffer to allocate) for the few moves most games have.
void StableSortByScore(std::vector<Action>& moves, const std::vector<int64_t>& score) {
  constexpr size_t kFew = 32;
  if (moves.size() > kFew) {
    std::stable_sort(moves.begin(), moves.end(),
                     [&score](Action a, Action b) { return score[a] > score[b]; });
    return;
  }
  for (size_t i = 1; i < moves.size(); ++i) {
    const Action move = moves[i];
    size_t j = i;
    for (; j > 0 && score[moves[j - 1]] < score[move]; --j) moves[j] = moves[j - 1];
    moves[j] = move;
  }
}

// Moves `move` to the front of `moves` when it is there.
void ToFront(std::vector<Action>& moves, Action move) {
  auto at = std::find(moves.begin(), moves.end(), move);
  if (at != moves.end()) std::rotate(moves.begin(), at, at + 1);
}

// One search call: bounds, table, ordering heuristics, counters. Every value is in the utility
// of `max_player_`, the player to move at the root; every other player is MIN.
class Engine {
 public:
  Engine(const State& root, Evaluator& evaluator, const AlphaBetaConfig& config, Budget& budget)
      : config_(config),
        evaluator_(evaluator),
        budget_(budget),
        max_player_(root.CurrentPlayer()),
        vmin_(root.GetGame()->MinUtility()),
        vmax_(root.GetGame()->MaxUtility()),
        has_chance_(root.GetGame()->GetType().chance_mode !=
                    open_spiel::GameType::ChanceMode::kDeterministic),
        key_(root, config.key_kind),
        history_(root.NumPlayers(), std::vector<int64_t>(root.GetGame()->NumDistinctActions(), 0)) {
    if (root.GetGame()->NumDistinctActions() > std::numeric_limits<int32_t>::max()) {
      throw std::invalid_argument("the native engine needs fewer than 2^31 distinct actions");
    }
    if (config.transpositions) table_ = std::make_unique<IntervalTable>(config.tt_capacity);
  }

  Iteration Root(const State& state, int depth, const Iteration* previous);
  std::vector<Action> Ordered(const State& state, int player, int ply,
                              std::optional<Action> tt_move) const;
  std::vector<Action> PrincipalVariation(const State& state, Action first, int depth) const;

  int64_t evaluations = 0;
  int64_t cutoffs = 0;
  int64_t tt_hits = 0;
  int64_t TableSize() const { return table_ ? table_->size() : 0; }
  std::optional<TableLabels> Labels(const State& root, const LabelRequest& request) const {
    if (!table_) return std::nullopt;
    return WalkTable(root, *table_, key_, request.features, {request.min_depth, vmin_, vmax_});
  }

 private:
  Bounds Node(State& state, int depth, double alpha, double beta, double eps, int ply);
  Bounds Chance(State& state, int depth, double alpha, double beta, double eps, int ply);
  bool Probe(const State& state, int depth, const open_spiel::ActionsAndProbs& outcomes,
             const std::vector<size_t>& order, std::vector<double>& lowers,
             std::vector<double>& uppers, double& lower, double& upper, double alpha, double beta,
             double eps, int ply);
  void RecordCut(int player, Action move, int depth, int ply, bool early);
  double EvaluateLeaf(const State& state) {
    ++evaluations;
    horizon_ = true;
    return evaluator_.Value(state, max_player_);
  }
  Key KeyOf(const State& state) const { return key_(state); }

  const AlphaBetaConfig& config_;
  Evaluator& evaluator_;
  Budget& budget_;
  const int max_player_;
  const double vmin_;
  const double vmax_;
  const bool has_chance_;
  KeyFunction key_;
  std::unique_ptr<IntervalTable> table_;
  std::vector<std::vector<int64_t>> history_;
  std::vector<std::vector<Action>> killers_;
  bool horizon_ = false;  // set when the evaluator is called below the current node
};

std::vector<Action> Engine::Ordered(const State& state, int player, int ply,
                                    std::optional<Action> tt_move) const {
  std::vector<Action> moves = state.LegalActions();
  if (!config_.move_ordering || moves.size() < 2) return moves;
  StableSortByScore(moves, history_[player]);
  if (static_cast<size_t>(ply) < killers_.size()) {
    const std::vector<Action>& killers = killers_[ply];
    for (auto killer = killers.rbegin(); killer != killers.rend(); ++killer) {
      ToFront(moves, *killer);
    }
  }
  if (tt_move.has_value()) ToFront(moves, *tt_move);
  return moves;
}

void Engine::RecordCut(int player, Action move, int depth, int ply, bool early) {
  cutoffs += early;
  if (!config_.move_ordering) return;
  std::vector<int64_t>& row = history_[player];
  row[move] += int64_t{depth} * depth;
  if (row[move] > kHistoryLimit) {
    for (int64_t& score : row) score >>= 1;
  }
  if (killers_.size() <= static_cast<size_t>(ply)) killers_.resize(ply + 1);
  std::vector<Action>& killers = killers_[ply];
  if (std::find(killers.begin(), killers.end(), move) == killers.end()) {
    killers.insert(killers.begin(), move);
    if (killers.size() > 2) killers.resize(2);
  }
}

Bounds Engine::Node(State& state, int depth, double alpha, double beta, double eps, int ply) {
  budget_.Tick();
  if (state.IsTerminal()) {
    const double value = state.PlayerReturn(max_player_);
    return {value, value};
  }
  if (depth <= 0) {
    const double value = EvaluateLeaf(state);
    return {value, value};
  }
  if (has_chance_ && state.IsChanceNode()) return Chance(state, depth, alpha, beta, eps, ply);

  Key key;
  std::optional<Action> tt_move;
  double tt_lower = vmin_, tt_upper = vmax_;
  const int player = state.CurrentPlayer();
  if (table_) {
    key = KeyOf(state);
    if (const TableEntry* entry = table_->Find(key)) {
      if (entry->move != kNoMove) tt_move = entry->move;
      if (Usable(*entry, depth)) {
        if (entry->upper <= alpha + eps || entry->lower >= beta - eps ||
            entry->upper - entry->lower <= eps) {
          ++tt_hits;
          if (entry->horizon) horizon_ = true;
          return {entry->lower, entry->upper};
        }
        // Narrowing the window by the stored interval is safe because the result is
        // intersected with that interval below.
        tt_lower = entry->lower;
        tt_upper = entry->upper;
        alpha = std::max(alpha, tt_lower);
        beta = std::min(beta, tt_upper);
      }
    }
  }

  const bool outer_horizon = horizon_;
  horizon_ = false;
  const std::vector<Action> moves = Ordered(state, player, ply, tt_move);
  const size_t last = moves.size() - 1;
  const int child_depth = depth - 1;
  const bool is_max = player == max_player_;
  // The children at the depth limit valued without building them (connect_four's heuristic):
  // counted, and their evaluations, as if each were searched.
  const bool leaves = child_depth <= 0 && !has_chance_ &&
                      evaluator_.BeginChildren(state, max_player_, config_.undo);
  Action best_move = moves[0];
  int64_t cut = -1;  // index of the move that closed the window
  double lower, upper, best;
  if (is_max) {
    lower = upper = vmin_;
    best = -kInfinity;
  } else {
    lower = upper = vmax_;
    best = kInfinity;
  }
  for (size_t i = 0; i < moves.size(); ++i) {
    const Action move = moves[i];
    Bounds child;
    if (leaves) {
      budget_.Tick();
      const LeafValue leaf = evaluator_.ChildValue(move);
      if (!leaf.terminal) {
        ++evaluations;
        horizon_ = true;
      }
      child = {leaf.value, leaf.value};
    } else if (config_.undo) {
      state.ApplyAction(move);
      child = Node(state, child_depth, alpha, beta, eps, ply + 1);
      state.UndoAction(player, move);
    } else {
      std::unique_ptr<State> next = state.Child(move);
      child = Node(*next, child_depth, alpha, beta, eps, ply + 1);
    }
    if (is_max) {
      if (child.upper > upper) upper = child.upper;
      if (child.lower > best) {
        best = child.lower;
        best_move = move;
        if (child.lower > lower) {
          lower = child.lower;
          if (lower > alpha) alpha = lower;
        }
      }
      if (lower >= beta - eps) {
        if (i < last) upper = vmax_;  // unexplored children may still reach vmax
        cut = static_cast<int64_t>(i);
        break;
      }
    } else {
      if (child.lower < lower) lower = child.lower;
      if (child.upper < best) {
        best = child.upper;
        best_move = move;
        if (child.upper < upper) {
          upper = child.upper;
          if (upper < beta) beta = upper;
        }
      }
      if (upper <= alpha + eps) {
        if (i < last) lower = vmin_;
        cut = static_cast<int64_t>(i);
        break;
      }
    }
  }
  if (cut >= 0) RecordCut(player, moves[cut], depth, ply, static_cast<size_t>(cut) < last);

  lower = std::max(lower, tt_lower);
  upper = std::min(upper, tt_upper);
  const bool horizon = horizon_;
  horizon_ = outer_horizon || horizon;
  if (table_) {
    table_->Store(key, lower, upper, depth, static_cast<int32_t>(best_move), horizon);
  }
  return {lower, upper};
}

Bounds Engine::Chance(State& state, int depth, double alpha, double beta, double eps, int ply) {
  const open_spiel::ActionsAndProbs outcomes = state.ChanceOutcomes();
  const size_t count = outcomes.size();
  std::vector<double> lowers(count, vmin_), uppers(count, vmax_);
  Key key;
  const bool outer_horizon = horizon_;
  horizon_ = false;
  if (table_) {
    key = KeyOf(state);
    const TableEntry* entry = table_->Find(key);
    if (entry != nullptr && Usable(*entry, depth)) {
      if (entry->upper <= alpha + eps || entry->lower >= beta - eps ||
          entry->upper - entry->lower <= eps) {
        ++tt_hits;
        horizon_ = outer_horizon || entry->horizon;
        return {entry->lower, entry->upper};
      }
      if (entry->outcomes != kNoOutcomes) {  // resume from the stored outcome bounds
        const Interval* stored = table_->Outcomes(*entry);
        for (size_t j = 0; j < count; ++j) {
          lowers[j] = stored[j].lower;
          uppers[j] = stored[j].upper;
        }
        horizon_ = entry->horizon;
      }
    }
  }
  double lower = Weighted(outcomes, lowers);
  double upper = Weighted(outcomes, uppers);
  // Most probable outcomes first: they move the bounds most, so cuts come sooner.
  std::vector<size_t> order(count);
  for (size_t j = 0; j < count; ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(), [&outcomes](size_t a, size_t b) {
    return outcomes[a].second > outcomes[b].second;
  });
  bool cut = false;
  if (config_.probing) {
    cut = Probe(state, depth, outcomes, order, lowers, uppers, lower, upper, alpha, beta, eps, ply);
  }
  if (!cut) {
    double spent = 0.0;
    double mass = 1.0;
    for (size_t rank = 0; rank < count; ++rank) {
      const size_t j = order[rank];
      const Action action = outcomes[j].first;
      const double p = outcomes[j].second;
      const double child_lower = lowers[j], child_upper = uppers[j];
      const double eps_j = config_.carry ? std::max(0.0, eps - spent) / std::max(mass, p) : eps;
      if (child_upper - child_lower > eps_j) {
        // Star-1 windows widened by the node's own tolerance: failing against a_j
        // (new_upper <= a_j + eps_j) still brings upper down to alpha + eps.
        const double slack = (eps - p * eps_j) / p;
        const double a_j = (alpha - upper + p * child_upper) / p + slack;
        const double b_j = (beta - lower + p * child_lower) / p - slack;
        std::unique_ptr<State> next = state.Child(action);
        const Bounds child = Node(*next, depth, a_j > vmin_ ? a_j : vmin_,
                                  b_j < vmax_ ? b_j : vmax_, eps_j, ply + 1);
        const double new_lower = std::max(child.lower, child_lower);
        const double new_upper = std::min(child.upper, child_upper);
        lower += p * (new_lower - child_lower);
        upper += p * (new_upper - child_upper);
        lowers[j] = new_lower;
        uppers[j] = new_upper;
      }
      spent += p * (uppers[j] - lowers[j]);
      mass -= p;
      if (upper <= alpha + eps || lower >= beta - eps || upper - lower <= eps) {
        cut = true;
        cutoffs += rank < count - 1;
        break;
      }
    }
  }
  // Summed afresh in outcome order, as expectiminimax does, so that exact values agree to the
  // last bit instead of carrying the incremental updates' rounding.
  lower = std::min(std::max(Weighted(outcomes, lowers), vmin_), vmax_);
  upper = std::max(std::min(Weighted(outcomes, uppers), vmax_), lower);
  const bool horizon = horizon_;
  horizon_ = outer_horizon || horizon;
  if (table_) {
    std::vector<Interval> stored(count);
    for (size_t j = 0; j < count; ++j) stored[j] = Interval{lowers[j], uppers[j]};
    table_->Store(key, lower, upper, depth, kNoMove, horizon, &stored);
  }
  return {lower, upper};
}

bool Engine::Probe(const State& state, int depth, const open_spiel::ActionsAndProbs& outcomes,
                   const std::vector<size_t>& order, std::vector<double>& lowers,
                   std::vector<double>& uppers, double& lower, double& upper, double alpha,
                   double beta, double eps, int ply) {
  // Star-2: one move of a MAX outcome bounds it from below, of a MIN outcome from above. An
  // outcome that is terminal or another chance node is left to the Star-1 pass.
  for (size_t j : order) {
    const Action action = outcomes[j].first;
    const double p = outcomes[j].second;
    const double child_lower = lowers[j], child_upper = uppers[j];
    if (child_upper - child_lower <= eps) continue;
    std::unique_ptr<State> child = state.Child(action);
    if (child->IsTerminal() || child->IsChanceNode()) continue;
    budget_.Tick();
    const int player = child->CurrentPlayer();
    std::optional<Action> tt_move;
    if (table_) {
      const TableEntry* entry = table_->Find(KeyOf(*child));
      if (entry != nullptr && entry->move != kNoMove) tt_move = entry->move;
    }
    const Action move = Ordered(*child, player, ply + 1, tt_move)[0];
    const double a_j = std::max(vmin_, (alpha - upper + p * child_upper) / p);
    const double b_j = std::min(vmax_, (beta - lower + p * child_lower) / p);
    std::unique_ptr<State> grandchild = child->Child(move);
    const Bounds probed = Node(*grandchild, depth - 1, a_j, b_j, eps, ply + 2);
    if (player == max_player_) {
      if (probed.lower > child_lower) {
        lower += p * (probed.lower - child_lower);
        lowers[j] = probed.lower;
      }
    } else if (probed.upper < child_upper) {
      upper += p * (probed.upper - child_upper);
      uppers[j] = probed.upper;
    }
    if (upper <= alpha + eps || lower >= beta - eps || upper - lower <= eps) {
      ++cutoffs;
      return true;
    }
  }
  return false;
}

Iteration Engine::Root(const State& state, int depth, const Iteration* previous) {
  budget_.Tick();
  horizon_ = false;
  const double eps = config_.epsilon;
  std::vector<Action> moves = Ordered(state, max_player_, 0, std::nullopt);
  if (previous != nullptr) {
    std::unordered_map<Action, size_t> rank;
    for (size_t i = 0; i < previous->order.size(); ++i) rank.emplace(previous->order[i], i);
    auto rank_of = [&rank](Action move) {
      auto found = rank.find(move);
      return found == rank.end() ? rank.size() : found->second;
    };
    std::stable_sort(moves.begin(), moves.end(),
                     [&rank_of](Action a, Action b) { return rank_of(a) < rank_of(b); });
  }
  Iteration iteration{depth, vmin_, vmin_, {}, {}, false};
  double& lower = iteration.lower;
  double& upper = iteration.upper;
  for (Action move : moves) {
    std::unique_ptr<State> child = state.Child(move);
    const Bounds bounds = Node(*child, depth - 1, lower, vmax_, eps, 1);
    iteration.children.push_back(RootChild{move, bounds.lower, bounds.upper});
    lower = std::max(lower, bounds.lower);
    upper = std::max(upper, bounds.upper);
    if (vmax_ <= lower + eps) {
      if (iteration.children.size() < moves.size()) upper = vmax_;
      break;
    }
  }
  std::vector<RootChild> ranked = iteration.children;
  std::stable_sort(ranked.begin(), ranked.end(), [](const RootChild& a, const RootChild& b) {
    return a.lower != b.lower ? a.lower > b.lower : a.upper > b.upper;
  });
  std::unordered_set<Action> examined;
  for (const RootChild& child : ranked) {
    iteration.order.push_back(child.action);
    examined.insert(child.action);
  }
  for (Action move : moves) {
    if (examined.count(move) == 0) iteration.order.push_back(move);
  }
  iteration.horizon = horizon_;
  return iteration;
}

std::vector<Action> Engine::PrincipalVariation(const State& state, Action first, int depth) const {
  std::vector<Action> pv{first};
  if (!table_) return pv;
  std::vector<Key> seen;
  std::unique_ptr<State> current = state.Child(first);
  while (static_cast<int>(pv.size()) < depth && !current->IsTerminal()) {
    const Key key = KeyOf(*current);
    const TableEntry* entry = table_->Find(key);
    if (entry == nullptr || entry->move == kNoMove) break;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) break;
    seen.push_back(key);
    const Action move = entry->move;
    const std::vector<Action> legal = current->LegalActions();
    if (std::find(legal.begin(), legal.end(), move) == legal.end()) break;
    pv.push_back(move);
    current = current->Child(move);
  }
  return pv;
}

const char* ReasonName(StopReason reason) {
  return reason == StopReason::kNodes ? "nodes" : "seconds";
}

}  // namespace

AlphaBetaOutcome AlphaBetaSearch(const State& root, Evaluator& evaluator,
                                 const AlphaBetaConfig& config, Budget& budget,
                                 const LabelRequest* labels) {
  evaluator.StartSearch(root);
  // The root is searched on a copy: with `undo`, the engine changes the states it is given.
  // A twin (`twins.h`) undoes moves; it searches unless the states go to Python.
  const std::unique_ptr<State> state = SearchCopy(root, evaluator.ExportsStates());
  AlphaBetaConfig searched = config;
  if (IsTwin(*state)) searched.undo = true;
  Engine engine(root, evaluator, searched, budget);
  std::optional<Iteration> best;
  AlphaBetaOutcome outcome;
  try {
    for (int depth = config.first_depth; depth <= config.final_depth; ++depth) {
      best = engine.Root(*state, depth, best ? &*best : nullptr);
      if (!best->horizon) {
        outcome.stopped_by = "solved";
        break;
      }
    }
  } catch (const SearchStopped& stop) {
    outcome.stopped_by = ReasonName(stop.reason);
  }
  outcome.seconds = budget.Elapsed();
  outcome.nodes = budget.nodes();
  outcome.evaluations = engine.evaluations;
  outcome.cutoffs = engine.cutoffs;
  outcome.tt_hits = engine.tt_hits;
  outcome.tt_entries = engine.TableSize();
  if (labels != nullptr) outcome.labels = engine.Labels(root, *labels);
  if (!best) {
    outcome.fallback = engine.Ordered(*state, state->CurrentPlayer(), 0, std::nullopt)[0];
    return outcome;
  }
  outcome.completed = true;
  outcome.depth = best->depth;
  outcome.lower = best->lower;
  outcome.upper = best->upper;
  outcome.horizon = best->horizon;
  outcome.children = std::move(best->children);
  outcome.order = best->order;
  outcome.pv = engine.PrincipalVariation(*state, best->order[0], best->depth);
  return outcome;
}

}  // namespace spiel_bounded
