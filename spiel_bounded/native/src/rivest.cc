#include "rivest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "twins.h"

namespace spiel_bounded {
namespace {

using open_spiel::Action;
using open_spiel::State;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kTop = 1023.0;        // the Python `TOP`: a win's mapped value
constexpr double kReverseBase = 0.05;  // the Python `REVERSE_BASE`
constexpr int32_t kNoChildren = -1;

// A node of the partial tree (the Python `RivestNode`). A node's children are generated at
// once, so they sit side by side in the arena: `first` and `count` name them.
struct Node {
  double value = 0.0;  // the root player's, mapped into [1, TOP]
  double penalty = 0.0;
  double weight = 0.0;
  Action action = 0;  // the move from the parent
  int32_t first = kNoChildren;
  int32_t count = 0;
  int32_t depth = 0;
  bool maximizing = false;
  bool solved = false;
};

// `M_q(values) = ((1/n) sum v^q)^(1/q)` in log space: the Python `generalized_mean`, operation
// for operation (its `sum` adds left to right from 0).
double GeneralizedMean(const std::vector<double>& values, double q) {
  std::vector<double> logs(values.size());
  for (size_t i = 0; i < values.size(); ++i) logs[i] = q * std::log(values[i]);
  const double top = *std::max_element(logs.begin(), logs.end());
  double total = 0.0;
  for (double log : logs) total += std::exp(log - top);
  return std::exp((top + std::log(total / static_cast<double>(values.size()))) / q);
}

// The partial tree and its update rules (the Python `MinMaxTree`).
class Tree {
 public:
  Tree(const State& root, Evaluator& evaluator, const RivestConfig& config, Budget& budget)
      : config_(config),
        evaluator_(evaluator),
        budget_(budget),
        player_(root.CurrentPlayer()),
        low_(config.min_utility),
        scale_((kTop - 1.0) / (config.max_utility - config.min_utility)) {
    nodes_.push_back(Leaf(SearchCopy(root, evaluator.ExportsStates()), 0, 0));
  }

  // Expands the best tip and updates its path; false when nothing is left to expand.
  bool Step();

  double Utility(double value) const { return low_ + (value - 1.0) / scale_; }
  const Node& node(int32_t index) const { return nodes_[index]; }
  int64_t size() const { return static_cast<int64_t>(nodes_.size()); }
  int32_t BestChild(const Node& node, bool maximizing) const;

  int64_t evaluations = 0;
  int64_t tree_depth = 0;

 private:
  double Mapped(double utility) const { return 1.0 + (utility - low_) * scale_; }
  Node Leaf(std::unique_ptr<State> state, int32_t depth, Action action);
  double Weight(const Node& parent, const Node& child) const;
  void BackUp(int32_t index);
  void Expand(int32_t index);

  const RivestConfig& config_;
  Evaluator& evaluator_;
  Budget& budget_;
  const int player_;
  const double low_;
  const double scale_;
  std::vector<Node> nodes_;
  std::vector<std::unique_ptr<State>> states_;  // a tip's state, until it is expanded
  std::vector<int32_t> path_;                   // reused by every step
  std::vector<double> values_;                  // reused by `BackUp`
};

Node Tree::Leaf(std::unique_ptr<State> state, int32_t depth, Action action) {
  Node node;
  node.action = action;
  node.depth = depth;
  node.maximizing = state->CurrentPlayer() == player_;
  if (state->IsTerminal()) {
    node.value = Mapped(state->PlayerReturn(player_));
    node.solved = true;
    node.penalty = kInfinity;
    states_.push_back(nullptr);
    return node;
  }
  ++evaluations;
  node.value = Mapped(evaluator_.Value(*state, player_));
  if (config_.max_depth >= 0 && depth >= config_.max_depth) {
    node.penalty = kInfinity;  // at the depth limit: never expanded
  }
  states_.push_back(std::move(state));
  return node;
}

double Tree::Weight(const Node& parent, const Node& child) const {
  if (!config_.generalized) {
    return kReverseBase + std::abs(std::log(parent.value) - std::log(child.value));
  }
  const double q = parent.maximizing ? config_.p : -config_.p;
  return std::log(static_cast<double>(parent.count)) -
         (q - 1.0) * (std::log(child.value) - std::log(parent.value));
}

void Tree::BackUp(int32_t index) {
  Node& node = nodes_[index];
  const int32_t first = node.first, end = node.first + node.count;
  const double decisive = node.maximizing ? kTop : 1.0;
  bool all_solved = true, decided = false;
  for (int32_t c = first; c < end; ++c) {
    const Node& child = nodes_[c];
    all_solved = all_solved && child.solved;
    decided = decided || (child.solved && child.value == decisive);
  }
  node.solved = all_solved || decided;
  if (node.solved) {
    bool found = false;
    double exact = 0.0;
    for (int32_t c = first; c < end; ++c) {
      const Node& child = nodes_[c];
      if (!child.solved) continue;
      if (!found || (node.maximizing ? child.value > exact : child.value < exact)) {
        exact = child.value;
        found = true;
      }
    }
    node.value = exact;
  } else if (config_.generalized) {
    values_.clear();
    for (int32_t c = first; c < end; ++c) values_.push_back(nodes_[c].value);
    node.value = GeneralizedMean(values_, node.maximizing ? config_.p : -config_.p);
  } else {
    double best = nodes_[first].value;
    for (int32_t c = first + 1; c < end; ++c) {
      const double value = nodes_[c].value;
      best = node.maximizing ? std::max(best, value) : std::min(best, value);
    }
    node.value = best;
  }
  double penalty = kInfinity;
  for (int32_t c = first; c < end; ++c) {
    Node& child = nodes_[c];
    child.weight = Weight(node, child);
    penalty = std::min(penalty, child.weight + child.penalty);
  }
  node.penalty = node.solved ? kInfinity : penalty;
}

void Tree::Expand(int32_t index) {
  const std::vector<Action> actions = states_[index]->LegalActions();
  if (size() + static_cast<int64_t>(actions.size()) > config_.max_nodes) {
    throw SearchStopped{StopReason::kNodes};
  }
  const int32_t depth = nodes_[index].depth + 1;
  const size_t before = nodes_.size();
  try {
    for (Action action : actions) {
      budget_.Tick();
      nodes_.push_back(Leaf(states_[index]->Child(action), depth, action));
    }
  } catch (...) {
    // A budget that runs out leaves the tip as it was (its evaluations stay counted).
    nodes_.resize(before);
    states_.resize(before);
    throw;
  }
  Node& tip = nodes_[index];
  tip.first = static_cast<int32_t>(before);
  tip.count = static_cast<int32_t>(actions.size());
  states_[index].reset();
  tree_depth = std::max<int64_t>(tree_depth, depth);
}

bool Tree::Step() {
  if (nodes_[0].penalty == kInfinity) return false;
  path_.assign(1, 0);
  int32_t index = 0;
  while (nodes_[index].first != kNoChildren) {
    const Node& node = nodes_[index];
    int32_t best = node.first;
    double least = nodes_[best].weight + nodes_[best].penalty;
    for (int32_t c = node.first + 1; c < node.first + node.count; ++c) {
      const double key = nodes_[c].weight + nodes_[c].penalty;
      if (key < least) {
        least = key;
        best = c;
      }
    }
    index = best;
    path_.push_back(index);
  }
  Expand(index);
  for (auto at = path_.rbegin(); at != path_.rend(); ++at) BackUp(*at);
  return true;
}

int32_t Tree::BestChild(const Node& node, bool maximizing) const {
  int32_t best = node.first;
  for (int32_t c = node.first + 1; c < node.first + node.count; ++c) {
    const double value = nodes_[c].value;
    if (maximizing ? value > nodes_[best].value : value < nodes_[best].value) best = c;
  }
  return best;
}

const char* ReasonName(StopReason reason) {
  return reason == StopReason::kNodes ? "nodes" : "seconds";
}

}  // namespace

RivestOutcome RivestSearch(const State& root, Evaluator& evaluator, const RivestConfig& config,
                           Budget& budget, double seconds) {
  evaluator.StartSearch(root);
  RivestOutcome outcome;
  {
    Tree tree(root, evaluator, config, budget);
    // Freeing the tree takes time too: stop early enough to free it within the limit.
    const double free_by = seconds < 0 ? kInfinity : seconds;
    try {
      while (tree.Step()) {
        if (free_by < kInfinity &&
            budget.Elapsed() + static_cast<double>(tree.size()) * config.free_seconds_per_node >=
                free_by) {
          throw SearchStopped{StopReason::kSeconds};
        }
      }
      outcome.stopped_by = tree.node(0).solved ? "solved" : "depth";
    } catch (const SearchStopped& stop) {
      outcome.stopped_by = ReasonName(stop.reason);
    }
    const Node& top = tree.node(0);
    outcome.solved = top.solved;
    outcome.evaluations = tree.evaluations;
    outcome.depth = tree.tree_depth;
    outcome.tree_size = tree.size();
    if (top.first != kNoChildren) {
      outcome.expanded = true;
      const int32_t best = tree.BestChild(top, true);
      outcome.best = best - top.first;
      for (int32_t c = top.first; c < top.first + top.count; ++c) {
        outcome.actions.push_back(tree.node(c).action);
        outcome.values.push_back(tree.Utility(tree.node(c).value));
      }
      outcome.pv.push_back(tree.node(best).action);
      for (int32_t at = best; tree.node(at).first != kNoChildren;) {
        const Node& node = tree.node(at);
        at = tree.BestChild(node, node.maximizing);
        outcome.pv.push_back(tree.node(at).action);
      }
    }
  }  // the tree is freed inside the timed search
  outcome.nodes = budget.nodes();
  outcome.seconds = budget.Elapsed();
  return outcome;
}

}  // namespace spiel_bounded
