#include "pns.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "twins.h"

namespace spiel_bounded {
namespace {

using open_spiel::Action;
using open_spiel::State;

constexpr int64_t kInf = kProofInfinity;

// The Python entry `[lower, upper, pn, dn, question, work]`.
struct Entry {
  double lower;
  double upper;
  int64_t pn;
  int64_t dn;
  int64_t question;
  int64_t work;
};

// Open addressing over 128-bit keys (linear probing, at most half full), growing by doubling: a
// node-based map spent a quarter of the search chasing pointers. Entries are only ever dropped
// all at once, by `Keep`, which rebuilds the slots, so probing needs no tombstones.
class ProofTable {
 public:
  Entry* Find(const Key& key) {
    if (slots_.empty()) return nullptr;
    Slot& slot = slots_[SlotOf(key)];
    return slot.used ? &slot.entry : nullptr;
  }

  // Adds `key`, which is not in the table.
  void Insert(const Key& key, const Entry& entry) {
    if (2 * (size_ + 1) > slots_.size()) Rebuild(std::max<size_t>(1024, 2 * slots_.size()));
    slots_[SlotOf(key)] = Slot{key, entry, true};
    ++size_;
  }

  // Keeps only the entries with more work than `cut`.
  void Keep(int64_t cut) {
    for (Slot& slot : slots_) slot.used = slot.used && slot.entry.work > cut;
    Rebuild(slots_.size());
  }

  template <typename Visit>
  void ForEach(Visit visit) const {
    for (const Slot& slot : slots_) {
      if (slot.used) visit(slot.entry);
    }
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    Key key;
    Entry entry;
    bool used = false;
  };

  size_t SlotOf(const Key& key) const {
    const size_t mask = slots_.size() - 1;
    size_t index = key.low & mask;
    while (slots_[index].used && slots_[index].key != key) index = (index + 1) & mask;
    return index;
  }

  void Rebuild(size_t count) {
    std::vector<Slot> old(count);
    old.swap(slots_);
    size_ = 0;
    for (const Slot& slot : old) {
      if (!slot.used) continue;
      slots_[SlotOf(slot.key)] = slot;
      ++size_;
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// A node's children while it is searched (the Python `_Children`). A terminal child has no
// state and no key.
struct Children {
  std::vector<Action> actions;
  std::vector<std::unique_ptr<State>> states;
  std::vector<Key> keys;
  std::vector<double> lower;
  std::vector<double> upper;
  std::vector<int64_t> pn;
  std::vector<int64_t> dn;
};

struct Numbers {
  double lower;
  double upper;
  int64_t pn;
  int64_t dn;
};

// Sums proof numbers capped at infinity: the Python `min(sum(...), INF)` without overflow.
int64_t CappedSum(const std::vector<int64_t>& numbers) {
  int64_t total = 0;
  for (int64_t number : numbers) {
    total += number;
    if (total >= kInf) return kInf;
  }
  return total;
}

// One search call's state (the Python `_DFPNSearch`). Every value is the attacker's: the player
// to move at the root.
class Engine {
 public:
  Engine(const State& root, const PnsConfig& config, Budget& budget)
      : config_(config),
        budget_(budget),
        attacker_(root.CurrentPlayer()),
        key_(root, config.transpositions ? config.key_kind : KeyKind::kHistory) {}

  // Starts a new question "value >= goal": every stored number becomes stale.
  void Ask(double goal) {
    goal_ = goal;
    ++question_;
  }

  // Answers the current question at the root (infinite thresholds).
  Numbers SearchRoot(const State& root) { return Mid(root, KeyOf(root), kInf, kInf, 0); }

  double stop_width = -1.0;  // the root returns once upper - lower <= stop_width
  int64_t tt_hits = 0;
  int64_t collections = 0;
  int64_t max_ply = 0;
  std::unique_ptr<Children> root_children;
  int64_t TableSize() const { return static_cast<int64_t>(table_.size()); }

 private:
  // The game's key prefixed with the move number (the Python `(move_number(), key)`).
  Key KeyOf(const State& state) const {
    const Key base = key_(state);
    const int64_t move = state.MoveNumber();
    char bytes[24];
    std::copy_n(reinterpret_cast<const char*>(&base.high), 8, bytes);
    std::copy_n(reinterpret_cast<const char*>(&base.low), 8, bytes + 8);
    std::copy_n(reinterpret_cast<const char*>(&move), 8, bytes + 16);
    return Hash128(bytes, sizeof bytes);
  }

  double TerminalValue(const State& state) const {
    const double value = state.PlayerReturn(attacker_);
    if (!config_.outcomes.empty() && std::find(config_.outcomes.begin(), config_.outcomes.end(),
                                               value) == config_.outcomes.end()) {
      config_.bad_terminal(value, state);
    }
    return value;
  }

  // Numbers tied to bounds: a node whose bounds settle the question is solved.
  void Settle(double lower, double upper, int64_t& pn, int64_t& dn) const {
    if (lower >= goal_) {
      pn = 0;
      dn = kInf;
    } else if (upper < goal_) {
      pn = kInf;
      dn = 0;
    }
  }

  Children Expand(const State& state);
  void Renumber(Children& children);
  Numbers Mid(const State& state, const Key& key, int64_t th_pn, int64_t th_dn, int64_t ply);
  void Store(const Key& key, const Numbers& numbers, int64_t work);
  void Collect();

  const PnsConfig& config_;
  Budget& budget_;
  const int attacker_;
  KeyFunction key_;
  ProofTable table_;
  double goal_ = 0.0;
  int64_t question_ = 0;
};

Children Engine::Expand(const State& state) {
  Children children;
  const std::vector<Action> actions = state.LegalActions();
  const size_t count = actions.size();
  children.actions.reserve(count);
  children.states.reserve(count);
  children.keys.reserve(count);
  children.lower.reserve(count);
  children.upper.reserve(count);
  children.pn.reserve(count);
  children.dn.reserve(count);
  for (Action action : actions) {
    budget_.Tick();
    std::unique_ptr<State> child = state.Child(action);
    children.actions.push_back(action);
    double lower, upper;
    int64_t pn = 1, dn = 1;
    Key key;
    if (child->IsTerminal()) {
      lower = upper = TerminalValue(*child);
      child.reset();
    } else {
      key = KeyOf(*child);
      const Entry* found = table_.Find(key);
      if (found == nullptr) {
        lower = config_.floor;
        upper = config_.ceiling;
      } else {
        ++tt_hits;
        const Entry& entry = *found;
        lower = entry.lower;
        upper = entry.upper;
        if (entry.question == question_) {
          pn = entry.pn;
          dn = entry.dn;
        }
      }
    }
    Settle(lower, upper, pn, dn);
    children.states.push_back(std::move(child));
    children.keys.push_back(key);
    children.lower.push_back(lower);
    children.upper.push_back(upper);
    children.pn.push_back(pn);
    children.dn.push_back(dn);
  }
  return children;
}

void Engine::Renumber(Children& children) {
  // The root keeps its children across questions, so that its bounds never regress when the
  // table has dropped their entries; only their numbers are of the last question.
  for (size_t i = 0; i < children.actions.size(); ++i) {
    double lower = children.lower[i], upper = children.upper[i];
    int64_t pn = 1, dn = 1;
    if (children.states[i] != nullptr) {
      if (const Entry* found = table_.Find(children.keys[i])) {
        const Entry& entry = *found;
        lower = std::max(lower, entry.lower);
        upper = std::min(upper, entry.upper);
        if (entry.question == question_) {
          pn = entry.pn;
          dn = entry.dn;
        }
      }
    }
    Settle(lower, upper, pn, dn);
    children.lower[i] = lower;
    children.upper[i] = upper;
    children.pn[i] = pn;
    children.dn[i] = dn;
  }
}

Numbers Engine::Mid(const State& state, const Key& key, int64_t th_pn, int64_t th_dn, int64_t ply) {
  const int64_t start = budget_.nodes();
  max_ply = std::max(max_ply, ply);
  const bool attacking = state.CurrentPlayer() == attacker_;
  Children local;
  Children* children = &local;
  if (ply > 0) {
    local = Expand(state);
  } else if (root_children == nullptr) {
    root_children = std::make_unique<Children>(Expand(state));
    children = root_children.get();
  } else {
    children = root_children.get();
    Renumber(*children);
  }
  std::vector<double>& c_lower = children->lower;
  std::vector<double>& c_upper = children->upper;
  std::vector<int64_t>& c_pn = children->pn;
  std::vector<int64_t>& c_dn = children->dn;
  const size_t count = c_pn.size();
  Numbers node;
  while (true) {
    if (attacking) {
      node.lower = *std::max_element(c_lower.begin(), c_lower.end());
      node.upper = *std::max_element(c_upper.begin(), c_upper.end());
    } else {
      node.lower = *std::min_element(c_lower.begin(), c_lower.end());
      node.upper = *std::min_element(c_upper.begin(), c_upper.end());
    }
    if (node.lower >= goal_) {
      node.pn = 0;
      node.dn = kInf;
    } else if (node.upper < goal_) {
      node.pn = kInf;
      node.dn = 0;
    } else if (attacking) {
      node.pn = *std::min_element(c_pn.begin(), c_pn.end());
      node.dn = CappedSum(c_dn);
    } else {
      node.pn = CappedSum(c_pn);
      node.dn = *std::min_element(c_dn.begin(), c_dn.end());
    }
    if (node.pn >= th_pn || node.dn >= th_dn ||
        (ply == 0 && node.upper - node.lower <= stop_width)) {
      break;
    }
    // The most proving child: smallest pn at an OR node, smallest dn at an AND node (the first
    // among equals).
    const std::vector<int64_t>& numbers = attacking ? c_pn : c_dn;
    size_t best = 0;
    int64_t first = kInf, second = kInf;
    for (size_t i = 0; i < count; ++i) {
      const int64_t number = numbers[i];
      if (number < first) {
        second = first;
        first = number;
        best = i;
      } else if (number < second) {
        second = number;
      }
    }
    // Thresholds never exceed the root's infinity (an OR node's dn sums its child's), so
    // these stay far from overflow.
    int64_t child_th_pn, child_th_dn;
    if (attacking) {
      child_th_pn = std::min(th_pn, second + 1);
      child_th_dn = th_dn - node.dn + c_dn[best];
    } else {
      child_th_dn = std::min(th_dn, second + 1);
      child_th_pn = th_pn - node.pn + c_pn[best];
    }
    // A terminal child is solved, so never the best unsolved one.
    const State& child = *children->states[best];
    Numbers result = Mid(child, children->keys[best], child_th_pn, child_th_dn, ply + 1);
    // Intersected with what this node knew: a child whose table entries were dropped comes
    // back with looser bounds, which must not undo a proof (nor loop forever).
    result.lower = std::max(result.lower, c_lower[best]);
    result.upper = std::min(result.upper, c_upper[best]);
    Settle(result.lower, result.upper, result.pn, result.dn);
    c_lower[best] = result.lower;
    c_upper[best] = result.upper;
    c_pn[best] = result.pn;
    c_dn[best] = result.dn;
  }
  Store(key, node, budget_.nodes() - start);
  return node;
}

void Engine::Store(const Key& key, const Numbers& numbers, int64_t work) {
  if (Entry* found = table_.Find(key)) {
    // Both intervals hold the value, so their intersection does too.
    Entry& entry = *found;
    entry.lower = std::max(entry.lower, numbers.lower);
    entry.upper = std::min(entry.upper, numbers.upper);
    entry.pn = numbers.pn;
    entry.dn = numbers.dn;
    entry.question = question_;
    entry.work += work;
    return;
  }
  if (static_cast<int64_t>(table_.size()) >= config_.tt_capacity) Collect();
  table_.Insert(key, Entry{numbers.lower, numbers.upper, numbers.pn, numbers.dn, question_, work});
}

void Engine::Collect() {
  // Drops every entry at or below the median work: a rule on the works alone, so both engines
  // keep the same entries whatever order their tables hold them in.
  ++collections;
  std::vector<int64_t> works;
  works.reserve(table_.size());
  table_.ForEach([&works](const Entry& entry) { works.push_back(entry.work); });
  auto middle = works.begin() + static_cast<std::ptrdiff_t>((works.size() - 1) / 2);
  std::nth_element(works.begin(), middle, works.end());
  table_.Keep(*middle);
}

// The outcome in (lower, upper] nearest the middle of [lower, upper] (the lower one on a tie):
// the Python `_threshold`.
double Threshold(const std::vector<double>& outcomes, double lower, double upper) {
  const double middle = 0.5 * (lower + upper);
  double best = 0.0, best_distance = 0.0;
  bool found = false;
  for (double value : outcomes) {
    if (!(lower < value && value <= upper)) continue;
    const double distance = std::abs(value - middle);
    if (!found || distance < best_distance || (distance == best_distance && value < best)) {
      best = value;
      best_distance = distance;
      found = true;
    }
  }
  return best;
}

const char* ReasonName(StopReason reason) {
  return reason == StopReason::kNodes ? "nodes" : "seconds";
}

}  // namespace

PnsOutcome PnsSearch(const State& given, const PnsConfig& config, Budget& budget) {
  const std::unique_ptr<State> copy = SearchCopy(given, false);
  const State& root = *copy;
  Engine engine(root, config, budget);
  PnsOutcome outcome;
  double lower = config.floor, upper = config.ceiling;
  try {
    budget.Tick();  // the root
    if (config.bounded) {
      engine.stop_width = config.epsilon;
      while (upper - lower > config.epsilon) {
        engine.Ask(Threshold(config.outcomes, lower, upper));
        const Numbers found = engine.SearchRoot(root);
        lower = std::max(lower, found.lower);
        upper = std::min(upper, found.upper);
      }
    } else {
      engine.Ask(config.goal);
      engine.SearchRoot(root);
    }
  } catch (const SearchStopped& stop) {
    outcome.stopped_by = ReasonName(stop.reason);
  }
  outcome.root_lower = lower;
  outcome.root_upper = upper;
  outcome.seconds = budget.Elapsed();
  outcome.nodes = budget.nodes();
  outcome.tt_hits = engine.tt_hits;
  outcome.depth = engine.max_ply;
  outcome.collections = engine.collections;
  outcome.tt_entries = engine.TableSize();
  if (engine.root_children != nullptr) {
    Children& children = *engine.root_children;
    outcome.expanded = true;
    outcome.actions = std::move(children.actions);
    outcome.lower = std::move(children.lower);
    outcome.upper = std::move(children.upper);
    outcome.pn = std::move(children.pn);
    outcome.dn = std::move(children.dn);
  }
  return outcome;
}

}  // namespace spiel_bounded
