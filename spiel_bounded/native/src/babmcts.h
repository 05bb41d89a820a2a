// BABMCTS over OpenSpiel's C++ states: the native twin of
// `spiel_bounded.search.babmcts.python_tree`'s reference tree (the rules, proven bounds,
// alpha-beta windows, pruning, chance nodes and priors, are in docs/algorithms.md). It follows the
// reference step for step and draws the same random numbers
// (`py_random.h`), so that under the same seed, evaluator values and limits it builds the same
// tree (`tests/test_native_mcts.py`).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "budget.h"
#include "evaluator.h"
#include "mcts_tree.h"
#include "open_spiel/spiel.h"
#include "py_random.h"

namespace spiel_bounded {

// `BABMCTSSettings`, as far as the tree reads them.
struct BabmctsConfig {
  double epsilon = 0.0;
  double uct_c = 2.0;
  bool prune = true;
  int64_t max_nodes = 1'000'000;
};

// An evaluator's priors of a state, as `(action, probability)` pairs (PUCT); empty: none.
using PriorFunction =
    std::function<std::vector<std::pair<open_spiel::Action, double>>(const open_spiel::State&)>;

// One search call: what `BABMCTSTreeBase.search` puts in its `MCTSStats`.
struct BabmctsOutcome {
  std::string stopped_by;
  int64_t simulations = 0;
  int64_t evaluations = 0;
  int64_t cutoffs = 0;
  int64_t depth = 0;
  int64_t nodes = 0;
  int64_t tree_nodes = 0;
  int64_t reused_nodes = 0;
  double seconds = 0.0;
};

class Babmcts {
 public:
  Babmcts(double vmin, double vmax, const BabmctsConfig& config, uint64_t seed);

  void Reset(const open_spiel::State& state) { tree_.Reset(state); }
  bool MoveRoot(open_spiel::Action action) { return tree_.MoveRoot(action); }
  void Reseed(uint64_t seed) { random_.Seed(seed); }
  // Drops a kept tree that is full (before the budget of a search starts).
  void MakeRoom();

  // Runs simulations until the root is proved, `cap` more have run (`cap` < 0: no cap) or the
  // budget stops them. `prior` may be empty (UCT). Throws std::invalid_argument at a chance
  // root; an exception from the evaluator or the budget's interrupt passes through, leaving the
  // tree as before the simulation it stopped.
  BabmctsOutcome Search(Evaluator& evaluator, const PriorFunction& prior, int64_t cap,
                        Budget& budget);

  bool Proved() const;
  const MctsTree& tree() const { return tree_; }
  int64_t simulations() const { return simulations_; }
  int64_t evaluations() const { return evaluations_; }
  int64_t fallbacks() const { return fallbacks_; }

 private:
  // One simulation from `start`, a copy of the root state (connect_four's twin, or the root
  // itself); throws `SearchStopped` when the budget runs out or the tree is full.
  void Simulate(const open_spiel::State& start, Evaluator& evaluator, const PriorFunction& prior,
                Budget& budget);
  struct Step {
    int64_t index;  // among the node's edges
    double alpha;
    double beta;
  };
  struct Created {
    int64_t parent;
    int64_t edge;
    int64_t child;
  };

  // Selection: fills `path_` from the root to the parent of the child to create; returns the
  // index of that child among the parent's edges (the state ends at the child).
  int64_t Select(open_spiel::State& state, const PriorFunction& prior);
  void ExpandDecision(int64_t node, const open_spiel::State& state, const PriorFunction& prior);
  Step SelectOutcome(int64_t node, double alpha, double beta, double eps);
  Step ChanceSlow(int64_t node, double alpha, double beta, double eps);
  Step SelectMove(int64_t node, double alpha, double beta, double eps, int64_t& cutoffs);
  Step Fallback(int64_t node, double alpha, double beta);
  std::pair<double, double> OutcomeWindow(double p, double kid_lower, double kid_upper,
                                          double alpha, double beta, double lower,
                                          double upper) const;
  // An outcome of a chance node, sampled by probability (the reference's bisect).
  int64_t SampleOutcome(int64_t node);
  // Expansion and evaluation into `created_`; returns the leaf's value and whether terminal.
  std::pair<double, bool> ExpandLeaf(int64_t parent, int64_t index, open_spiel::State& state,
                                     Evaluator& evaluator, Budget& budget);
  void BackUp(int64_t created, double value, bool terminal);

  BabmctsConfig config_;
  MctsTree tree_;
  PyRandom random_;
  int64_t simulations_ = 0;
  int64_t evaluations_ = 0;
  int64_t fallbacks_ = 0;
  int64_t cutoffs_ = 0;  // this search's
  int64_t depth_ = 0;    // this search's
  std::vector<int64_t> path_;
  std::vector<Created> created_;
  struct Open {
    Step step;
    double cum;  // cumulative probability among the unpruned outcomes
  };
  std::vector<Open> open_;  // ChanceSlow's unpruned outcomes
};

}  // namespace spiel_bounded
