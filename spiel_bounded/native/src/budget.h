// The node and time budget of one search call: a port of `spiel_bounded.limits.Budget`.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

namespace spiel_bounded {

enum class StopReason { kNodes, kSeconds };

// Thrown inside a search when its budget runs out; the search catches it at its top.
struct SearchStopped {
  StopReason reason;
};

// Node and time limits of one search call (the depth limit is the search's own business).
struct BudgetLimits {
  int64_t max_nodes = -1;  // < 0: unlimited
  double seconds = -1.0;   // < 0: unlimited
};

// Counts nodes and watches the clock with the same rules as the Python `Budget`: the node limit
// is checked exactly (the first node past it stops the search, which then reports the limit),
// the clock at adaptive intervals that aim at `gap` of the time limit and shrink as the deadline
// nears. `interrupt` is called at every checkpoint (the module checks Python's signals there,
// so that Ctrl-C stops a native search) and may throw.
class Budget {
 public:
  using Clock = std::function<double()>;

  Budget(const BudgetLimits& limits, Clock clock, std::function<void()> interrupt,
         int clock_interval = 256, double gap = 0.01);

  // Counts one node; throws `SearchStopped` when a limit is exhausted.
  void Tick() {
    if (--countdown_ <= 0) Checkpoint();
  }

  int64_t nodes() const { return counted_ + chunk_ - countdown_; }
  double Elapsed() const { return clock_() - started_; }

 private:
  void Checkpoint();
  int64_t NextInterval(double left) const;
  void NextChunk();

  Clock clock_;
  std::function<void()> interrupt_;
  double started_;
  double last_read_;
  double deadline_;
  double gap_;
  int64_t max_nodes_;
  int64_t interval_;
  int64_t max_interval_;
  double node_seconds_ = 0.0;
  int64_t counted_ = 0;
  int64_t chunk_ = 0;
  int64_t countdown_ = 0;
};

// Seconds on a steady clock, for budgets that are not given one.
double SteadySeconds();

}  // namespace spiel_bounded
