#include "mcts_tree.h"

#include <utility>

namespace spiel_bounded {

void MctsTree::Reset(const open_spiel::State& state) {
  root_state_ = state.Clone();
  nodes_.clear();
  edges_.clear();
  const int64_t root = NewNode(*root_state_);
  if (nodes_[root].count >= 0) Rebound(root);  // a chance root
}

int64_t MctsTree::NewNode(const open_spiel::State& state) {
  MctsNode node;
  node.lower = vmin_;
  node.upper = vmax_;
  node.player = state.CurrentPlayer();
  if (node.player == open_spiel::kChancePlayerId) {
    const std::vector<std::pair<open_spiel::Action, double>> outcomes = state.ChanceOutcomes();
    node.first = edges();
    node.count = static_cast<int32_t>(outcomes.size());
    node.probs = true;
    // Left-to-right sums, as the reference's `accumulate`.
    double cum = 0.0;
    for (const auto& [action, prob] : outcomes) {
      cum += prob;
      MctsEdge edge{action};
      edge.prob = prob;
      edge.cum = cum;
      edges_.push_back(edge);
    }
  }
  nodes_.push_back(node);
  return size() - 1;
}

int64_t MctsTree::NewTerminal(double value) {
  MctsNode node;  // a terminal
  node.lower = node.upper = value;
  nodes_.push_back(node);
  return size() - 1;
}

void MctsTree::Expand(int64_t index, const std::vector<open_spiel::Action>& actions,
                      const std::vector<double>& priors) {
  MctsNode& node = nodes_[index];
  node.first = edges();
  node.count = static_cast<int32_t>(actions.size());
  node.probs = !priors.empty();
  for (size_t i = 0; i < actions.size(); ++i) {
    MctsEdge edge{actions[i]};
    if (node.probs) edge.prob = priors[i];
    edges_.push_back(edge);
  }
}

bool MctsTree::Rebound(int64_t index) {
  MctsNode& node = nodes_[index];
  const MctsEdge* begin = edges_.data() + node.first;
  const MctsEdge* end = begin + node.count;
  double lower;
  double upper;
  if (node.player == open_spiel::kChancePlayerId) {
    // Outcome order and plain sums, as an expectimax oracle computes them: rounding is
    // monotone, so the bounds bracket the oracle's float value exactly.
    lower = upper = 0.0;
    for (const MctsEdge* e = begin; e != end; ++e) {
      if (e->child < 0) {
        lower += e->prob * vmin_;
        upper += e->prob * vmax_;
      } else {
        lower += e->prob * nodes_[e->child].lower;
        upper += e->prob * nodes_[e->child].upper;
      }
    }
  } else if (node.player == 0) {
    lower = upper = vmin_;
    for (const MctsEdge* e = begin; e != end; ++e) {
      if (e->child < 0) {
        upper = vmax_;
      } else {
        const MctsNode& kid = nodes_[e->child];
        if (kid.lower > lower) lower = kid.lower;
        if (kid.upper > upper) upper = kid.upper;
      }
    }
  } else {
    lower = upper = vmax_;
    for (const MctsEdge* e = begin; e != end; ++e) {
      if (e->child < 0) {
        lower = vmin_;
      } else {
        const MctsNode& kid = nodes_[e->child];
        if (kid.lower < lower) lower = kid.lower;
        if (kid.upper < upper) upper = kid.upper;
      }
    }
  }
  if (lower == node.lower && upper == node.upper) return false;
  node.lower = lower;
  node.upper = upper;
  return true;
}

void MctsTree::Truncate(int64_t nodes, int64_t edges) {
  nodes_.erase(nodes_.begin() + nodes, nodes_.end());
  edges_.erase(edges_.begin() + edges, edges_.end());
}

bool MctsTree::MoveRoot(open_spiel::Action action) {
  const MctsNode& root = nodes_[kRoot];
  int64_t kid = -1;
  for (int64_t e = root.first; e < root.first + root.count; ++e) {
    if (edges_[e].action == action) kid = edges_[e].child;
  }
  if (root.count < 0 || kid < 0) return false;
  // Breadth-first copy of the subtree: a node's new index is its place in the copy.
  std::vector<MctsNode> nodes;
  std::vector<MctsEdge> edges;
  nodes.push_back(nodes_[kid]);
  for (size_t i = 0; i < nodes.size(); ++i) {
    // (`nodes` grows in the loop: no reference into it is kept.)
    const int64_t count = nodes[i].count;
    if (count < 0) continue;
    const int64_t first = nodes[i].first;
    nodes[i].first = static_cast<int64_t>(edges.size());
    for (int64_t e = first; e < first + count; ++e) {
      MctsEdge edge = edges_[e];
      if (edge.child >= 0) {
        nodes.push_back(nodes_[edge.child]);
        edge.child = static_cast<int64_t>(nodes.size()) - 1;
      }
      edges.push_back(edge);
    }
  }
  nodes_ = std::move(nodes);
  edges_ = std::move(edges);
  root_state_->ApplyAction(action);
  return true;
}

}  // namespace spiel_bounded
