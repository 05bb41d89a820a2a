// The storage of the native BABMCTS tree: nodes and edges in two flat arrays, the proven bounds
// of a node recomputed from its children, and moving the root down the game (the kept subtree is
// compacted to the front, so that the tree's size is its array's). The search's rules are in
// docs/algorithms.md, the reference tree in `spiel_bounded/search/babmcts/python_tree.py`;
// `babmcts.h` runs them over this storage.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "open_spiel/spiel.h"

namespace spiel_bounded {

// A node. Values (`w`, `q`, `lower`, `upper`) are player 0's utility whoever moves, as in the
// reference's `MCTSNode`, so that a tree reused after a move stays valid.
struct MctsNode {
  double lower = 0.0;
  double upper = 0.0;
  double w = 0.0;
  double q = 0.0;   // w / n, kept for selection
  double rs = 0.0;  // 1 / sqrt(n), kept for selection
  int64_t n = 0;
  int64_t first = 0;   // its first edge
  int32_t count = -1;  // its edges; -1 until a decision node is expanded (terminals never are)
  int32_t next = 0;    // decision nodes without priors: the first `next` edges have children
  int32_t player = open_spiel::kTerminalPlayerId;  // 0, 1, or kChancePlayerId
  bool probs = false;  // its edges carry probabilities (chance outcomes, or priors)
};

// An edge: a legal action (chance outcome) of its node, and the child it leads to.
struct MctsEdge {
  open_spiel::Action action;
  double prob = 0.0;  // chance probability or prior
  double cum = 0.0;   // chance nodes: cumulative probability up to this outcome
  int64_t child = -1;
};

class MctsTree {
 public:
  MctsTree(double vmin, double vmax) : vmin_(vmin), vmax_(vmax) {}

  // Drops the tree and holds only a root at (a clone of) `state`.
  void Reset(const open_spiel::State& state);
  // Moves the root to its child by `action` when that child is in the tree (true), keeping the
  // subtree below it; else changes nothing (false).
  bool MoveRoot(open_spiel::Action action);

  // A node for a non-terminal `state` (not attached to a parent): a chance node gets its
  // outcomes at once; its bounds stay [vmin, vmax] until `Rebound`.
  int64_t NewNode(const open_spiel::State& state);
  int64_t NewTerminal(double value);
  // Gives a decision node its edges (parallel to `actions`; `priors` empty or parallel too).
  void Expand(int64_t node, const std::vector<open_spiel::Action>& actions,
              const std::vector<double>& priors);
  // Recomputes a node's bounds from its children; true when they changed.
  bool Rebound(int64_t node);
  // Forgets the nodes and edges from the given sizes on (a simulation stopped before attaching).
  void Truncate(int64_t nodes, int64_t edges);

  MctsNode& node(int64_t i) { return nodes_[i]; }
  const MctsNode& node(int64_t i) const { return nodes_[i]; }
  MctsEdge& edge(int64_t i) { return edges_[i]; }
  const MctsEdge& edge(int64_t i) const { return edges_[i]; }
  int64_t size() const { return static_cast<int64_t>(nodes_.size()); }
  int64_t edges() const { return static_cast<int64_t>(edges_.size()); }
  static constexpr int64_t kRoot = 0;
  const open_spiel::State& root_state() const { return *root_state_; }
  double vmin() const { return vmin_; }
  double vmax() const { return vmax_; }

 private:
  double vmin_;
  double vmax_;
  std::vector<MctsNode> nodes_;
  std::vector<MctsEdge> edges_;
  std::unique_ptr<open_spiel::State> root_state_;
};

}  // namespace spiel_bounded
