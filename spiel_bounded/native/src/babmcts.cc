#include "babmcts.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "twins.h"

namespace spiel_bounded {
namespace {
constexpr int kChance = open_spiel::kChancePlayerId;
}  // namespace

Babmcts::Babmcts(double vmin, double vmax, const BabmctsConfig& config, uint64_t seed)
    : config_(config), tree_(vmin, vmax), random_(seed) {}

void Babmcts::MakeRoom() {
  if (tree_.size() >= config_.max_nodes) tree_.Reset(tree_.root_state());
}

bool Babmcts::Proved() const {
  const MctsNode& root = tree_.node(MctsTree::kRoot);
  return root.upper - root.lower <= config_.epsilon;
}

BabmctsOutcome Babmcts::Search(Evaluator& evaluator, const PriorFunction& prior, int64_t cap,
                               Budget& budget) {
  if (tree_.node(MctsTree::kRoot).player == kChance) {
    throw std::invalid_argument("babmcts searches from decision nodes, not chance nodes");
  }
  evaluator.StartSearch(tree_.root_state());
  // Simulations start from the game's twin (`twins.h`) unless the states go to Python.
  const std::unique_ptr<open_spiel::State> start =
      SearchCopy(tree_.root_state(), evaluator.ExportsStates() || static_cast<bool>(prior));
  BabmctsOutcome outcome;
  const int64_t start_simulations = simulations_;
  const int64_t start_evaluations = evaluations_;
  const int64_t start_size = tree_.size();
  cutoffs_ = 0;
  depth_ = 0;
  try {
    while (true) {
      if (Proved()) {
        outcome.stopped_by = "solved";
        break;
      }
      if (cap >= 0 && simulations_ - start_simulations >= cap) {
        outcome.stopped_by = "simulations";
        break;
      }
      Simulate(*start, evaluator, prior, budget);
    }
  } catch (const SearchStopped& stop) {
    outcome.stopped_by = stop.reason == StopReason::kNodes ? "nodes" : "seconds";
  }
  outcome.simulations = simulations_ - start_simulations;
  outcome.evaluations = evaluations_ - start_evaluations;
  outcome.cutoffs = cutoffs_;
  outcome.depth = depth_;
  outcome.nodes = tree_.size() - start_size;
  outcome.tree_nodes = tree_.size();
  outcome.reused_nodes = start_size;
  outcome.seconds = budget.Elapsed();
  return outcome;
}

void Babmcts::Simulate(const open_spiel::State& start, Evaluator& evaluator,
                       const PriorFunction& prior, Budget& budget) {
  std::unique_ptr<open_spiel::State> state = start.Clone();
  const int64_t index = Select(*state, prior);
  const auto [value, terminal] = ExpandLeaf(path_.back(), index, *state, evaluator, budget);
  for (const Created& made : created_) {
    tree_.edge(made.edge).child = made.child;
    MctsNode& parent = tree_.node(made.parent);
    if (parent.player != kChance && !parent.probs) ++parent.next;
    path_.push_back(made.child);
  }
  ++simulations_;
  depth_ = std::max(depth_, static_cast<int64_t>(path_.size()) - 1);
  BackUp(static_cast<int64_t>(created_.size()), value, terminal);
}

// -- selection ----------------------------------------------------------------------------------

int64_t Babmcts::Select(open_spiel::State& state, const PriorFunction& prior) {
  const bool prune = config_.prune;
  const double eps = prune ? config_.epsilon : 0.0;
  int64_t node = MctsTree::kRoot;
  path_.clear();
  path_.push_back(node);
  double alpha = tree_.vmin();
  double beta = tree_.vmax();
  int64_t cutoffs = 0;
  while (true) {
    // (Expansion adds edges, never nodes: references to nodes stay valid here.)
    MctsNode& current = tree_.node(node);
    if (prune) {
      if (current.lower > alpha) alpha = current.lower;
      if (current.upper < beta) beta = current.upper;
    }
    if (current.count < 0) ExpandDecision(node, state, prior);
    Step step;
    int64_t kid;
    if (current.player == kChance) {
      step = SelectOutcome(node, alpha, beta, eps);
      kid = tree_.edge(current.first + step.index).child;
    } else if (!current.probs && current.next < current.count) {
      // UCT tries every child once first; a child not yet created is never pruned.
      step = {current.next, alpha, beta};
      kid = -1;
    } else {
      step = SelectMove(node, alpha, beta, eps, cutoffs);
      kid = tree_.edge(current.first + step.index).child;
    }
    alpha = step.alpha;
    beta = step.beta;
    state.ApplyAction(tree_.edge(current.first + step.index).action);
    if (kid < 0) {
      cutoffs_ += cutoffs;
      return step.index;
    }
    node = kid;
    path_.push_back(kid);
  }
}

void Babmcts::ExpandDecision(int64_t node, const open_spiel::State& state,
                             const PriorFunction& prior) {
  std::vector<open_spiel::Action> actions = state.LegalActions();
  std::vector<double> priors;
  if (prior) {
    // As the reference's dict: a repeated action keeps its last weight, a missing one gets 0.
    std::unordered_map<open_spiel::Action, double> weights;
    for (const auto& [action, weight] : prior(state)) weights[action] = weight;
    priors.reserve(actions.size());
    for (open_spiel::Action action : actions) {
      const auto found = weights.find(action);
      priors.push_back(found == weights.end() ? 0.0 : found->second);
    }
  } else {  // expansion order, free of move-generation bias
    ShuffleActions(actions, random_);
  }
  tree_.Expand(node, actions, priors);
}

std::pair<double, double> Babmcts::OutcomeWindow(double p, double kid_lower, double kid_upper,
                                                 double alpha, double beta, double lower,
                                                 double upper) const {
  const double a = (alpha - upper + p * kid_upper) / p;
  const double b = (beta - lower + p * kid_lower) / p;
  return {std::max(tree_.vmin(), a), std::min(tree_.vmax(), b)};
}

int64_t Babmcts::SampleOutcome(int64_t node) {
  const MctsNode& chance = tree_.node(node);
  const MctsEdge* begin = &tree_.edge(chance.first);
  const MctsEdge* end = begin + chance.count;
  const double x = random_.Random() * (end - 1)->cum;
  // bisect_right: the first outcome whose cumulative probability exceeds x.
  const MctsEdge* found =
      std::upper_bound(begin, end, x, [](double v, const MctsEdge& e) { return v < e.cum; });
  return std::min<int64_t>(found - begin, chance.count - 1);
}

Babmcts::Step Babmcts::SelectOutcome(int64_t node, double alpha, double beta, double eps) {
  const MctsNode& chance = tree_.node(node);
  const double vmin = tree_.vmin();
  const double vmax = tree_.vmax();
  const int64_t i = SampleOutcome(node);
  const MctsEdge& edge = tree_.edge(chance.first + i);
  const double p = edge.prob;
  double kid_lower = vmin;
  double kid_upper = vmax;
  if (edge.child >= 0) {
    kid_lower = tree_.node(edge.child).lower;
    kid_upper = tree_.node(edge.child).upper;
  }
  double a = vmin;
  double b = vmax;
  if (config_.prune) {
    a = (alpha - chance.upper + p * kid_upper) / p;
    b = (beta - chance.lower + p * kid_lower) / p;
    if (a < vmin) a = vmin;
    if (b > vmax) b = vmax;
  }
  const double top = b < kid_upper ? b : kid_upper;
  const double bottom = a > kid_lower ? a : kid_lower;
  if (top <= bottom + eps) return ChanceSlow(node, alpha, beta, eps);
  return {i, a, b};
}

Babmcts::Step Babmcts::ChanceSlow(int64_t node, double alpha, double beta, double eps) {
  const MctsNode& chance = tree_.node(node);
  open_.clear();
  double cum = 0.0;
  for (int64_t i = 0; i < chance.count; ++i) {
    const MctsEdge& edge = tree_.edge(chance.first + i);
    double kid_lower = tree_.vmin();
    double kid_upper = tree_.vmax();
    if (edge.child >= 0) {
      kid_lower = tree_.node(edge.child).lower;
      kid_upper = tree_.node(edge.child).upper;
    }
    const auto [a, b] =
        OutcomeWindow(edge.prob, kid_lower, kid_upper, alpha, beta, chance.lower, chance.upper);
    if (std::min(b, kid_upper) <= std::max(a, kid_lower) + eps) {
      ++cutoffs_;
      continue;
    }
    cum += edge.prob;
    open_.push_back({{i, a, b}, cum});
  }
  if (open_.empty()) return Fallback(node, alpha, beta);
  const double x = random_.Random() * open_.back().cum;
  const auto found = std::upper_bound(open_.begin(), open_.end(), x,
                                      [](double v, const Open& o) { return v < o.cum; });
  const int64_t j = std::min<int64_t>(found - open_.begin(), open_.size() - 1);
  return open_[j].step;
}

Babmcts::Step Babmcts::SelectMove(int64_t node, double alpha, double beta, double eps,
                                  int64_t& cutoffs) {
  const MctsNode& current = tree_.node(node);
  const double sign = current.player == 0 ? 1.0 : -1.0;
  double best = -std::numeric_limits<double>::infinity();
  int64_t chosen = -1;
  const MctsEdge* edges = &tree_.edge(current.first);
  if (!current.probs) {
    const double explore = config_.uct_c * std::sqrt(std::log(static_cast<double>(current.n)));
    for (int64_t j = 0; j < current.count; ++j) {
      const MctsNode& kid = tree_.node(edges[j].child);
      const double top = beta < kid.upper ? beta : kid.upper;
      if (top <= (alpha > kid.lower ? alpha : kid.lower) + eps) {
        ++cutoffs;
        continue;
      }
      const double score = sign * kid.q + explore * kid.rs;
      if (score > best) {
        best = score;
        chosen = j;
      }
    }
  } else {
    const double explore = config_.uct_c * std::sqrt(static_cast<double>(current.n));
    for (int64_t j = 0; j < current.count; ++j) {
      double score;
      if (edges[j].child < 0) {
        score = explore * edges[j].prob;
      } else {
        const MctsNode& kid = tree_.node(edges[j].child);
        const double top = beta < kid.upper ? beta : kid.upper;
        if (top <= (alpha > kid.lower ? alpha : kid.lower) + eps) {
          ++cutoffs;
          continue;
        }
        score = sign * kid.q + explore * edges[j].prob / static_cast<double>(1 + kid.n);
      }
      if (score > best) {
        best = score;
        chosen = j;
      }
    }
  }
  if (chosen < 0) return Fallback(node, alpha, beta);
  return {chosen, alpha, beta};
}

Babmcts::Step Babmcts::Fallback(int64_t node, double alpha, double beta) {
  ++fallbacks_;
  const MctsNode& current = tree_.node(node);
  int64_t best = -1;
  double best_gap = -std::numeric_limits<double>::infinity();
  Step chosen{-1, alpha, beta};
  for (int64_t i = 0; i < current.count; ++i) {
    const MctsEdge& edge = tree_.edge(current.first + i);
    double kid_lower = tree_.vmin();
    double kid_upper = tree_.vmax();
    if (edge.child >= 0) {
      kid_lower = tree_.node(edge.child).lower;
      kid_upper = tree_.node(edge.child).upper;
    }
    if (kid_upper <= kid_lower) continue;
    double a = alpha;
    double b = beta;
    if (current.player == kChance) {
      std::tie(a, b) =
          OutcomeWindow(edge.prob, kid_lower, kid_upper, alpha, beta, current.lower, current.upper);
    }
    const double gap = std::min(b, kid_upper) - std::max(a, kid_lower);
    if (gap > best_gap) {
      best = i;
      best_gap = gap;
      chosen = {i, a, b};
    }
  }
  if (best < 0) {
    throw std::logic_error("babmcts: an open node without an open child: the bounds are corrupt");
  }
  return chosen;
}

// -- expansion, evaluation and backup ------------------------------------------------------------

std::pair<double, bool> Babmcts::ExpandLeaf(int64_t parent, int64_t index, open_spiel::State& state,
                                            Evaluator& evaluator, Budget& budget) {
  // Nodes are added to the arrays at once but attached (and counted as the tree's) only by
  // `Simulate`: a stop in here truncates them, leaving the tree as before the simulation.
  const int64_t nodes_before = tree_.size();
  const int64_t edges_before = tree_.edges();
  const int64_t room = config_.max_nodes - nodes_before;
  created_.clear();
  try {
    while (true) {
      budget.Tick();
      if (static_cast<int64_t>(created_.size()) >= room) throw SearchStopped{StopReason::kNodes};
      const int64_t edge = tree_.node(parent).first + index;
      if (state.IsTerminal()) {
        const double value = state.PlayerReturn(0);
        created_.push_back({parent, edge, tree_.NewTerminal(value)});
        return {value, true};
      }
      const int64_t child = tree_.NewNode(state);
      created_.push_back({parent, edge, child});
      if (tree_.node(child).player != kChance) {
        ++evaluations_;
        return {evaluator.Value(state, 0), false};
      }
      index = SampleOutcome(child);
      state.ApplyAction(tree_.edge(tree_.node(child).first + index).action);
      parent = child;
    }
  } catch (...) {
    tree_.Truncate(nodes_before, edges_before);
    created_.clear();
    throw;
  }
}

void Babmcts::BackUp(int64_t created, double value, bool terminal) {
  const double vmin = tree_.vmin();
  const double vmax = tree_.vmax();
  bool changed = terminal;
  const int64_t last = static_cast<int64_t>(path_.size()) - 1;
  const int64_t first_created = last - created + 1;
  for (int64_t k = last; k >= 0; --k) {
    MctsNode& node = tree_.node(path_[k]);
    const int64_t n = node.n + 1;
    node.n = n;
    node.w += value;
    node.q = node.w / static_cast<double>(n);
    node.rs = 1.0 / std::sqrt(static_cast<double>(n));
    if (k < last) {
      if (k >= first_created) {  // its parent saw it as an unexplored [vmin, vmax]
        tree_.Rebound(path_[k]);
        changed = node.lower != vmin || node.upper != vmax;
      } else if (changed) {
        changed = tree_.Rebound(path_[k]);
      }
    }
  }
}

}  // namespace spiel_bounded
