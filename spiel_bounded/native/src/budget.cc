#include "budget.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace spiel_bounded {
namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max() / 2;
}  // namespace

double SteadySeconds() {
  using std::chrono::steady_clock;
  return std::chrono::duration<double>(steady_clock::now().time_since_epoch()).count();
}

Budget::Budget(const BudgetLimits& limits, Clock clock, std::function<void()> interrupt,
               int clock_interval, double gap)
    : clock_(std::move(clock)),
      interrupt_(std::move(interrupt)),
      started_(clock_()),
      last_read_(started_),
      deadline_(limits.seconds < 0 ? kInfinity : started_ + limits.seconds),
      gap_(limits.seconds < 0 ? kInfinity : gap * limits.seconds),
      max_nodes_(limits.max_nodes < 0 ? kUnlimited : limits.max_nodes),
      // Until a node has been timed, read the clock after every node.
      interval_(limits.seconds < 0 ? clock_interval : 1),
      max_interval_(clock_interval) {
  NextChunk();
}

void Budget::NextChunk() {
  // One more than the nodes still allowed, so that the checkpoint falls on the first node past
  // the limit.
  chunk_ = std::min(interval_, max_nodes_ - counted_ + 1);
  countdown_ = chunk_;
}

void Budget::Checkpoint() {
  const int64_t done = chunk_ - countdown_;
  counted_ += done;
  chunk_ = countdown_ = 0;
  if (counted_ > max_nodes_) {
    counted_ = max_nodes_;
    throw SearchStopped{StopReason::kNodes};
  }
  if (interrupt_) interrupt_();
  if (deadline_ < kInfinity) {
    const double now = clock_();
    if (done > 0) {
      node_seconds_ = std::max((now - last_read_) / static_cast<double>(done),
                               (now - started_) / static_cast<double>(counted_));
      last_read_ = now;
    }
    const double left = deadline_ - now;
    if (left <= 0.5 * node_seconds_) throw SearchStopped{StopReason::kSeconds};
    interval_ = NextInterval(left);
  }
  NextChunk();
}

int64_t Budget::NextInterval(double left) const {
  if (node_seconds_ <= 0.0) return 1;
  const double span = std::min(gap_, 0.5 * left);
  const int64_t most = std::min(max_interval_, 2 * interval_);
  if (node_seconds_ * static_cast<double>(most) <= span) return most;
  return std::max<int64_t>(1, static_cast<int64_t>(span / node_seconds_));
}

}  // namespace spiel_bounded
