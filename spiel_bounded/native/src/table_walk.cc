#include "table_walk.h"

#include <memory>
#include <unordered_set>
#include <utility>

#include "state_text.h"

namespace spiel_bounded {
namespace {

struct KeyHash {
  size_t operator()(const Key& key) const { return static_cast<size_t>(key.low); }
};

bool Kept(const TableEntry& entry, const LabelRule& rule) {
  const bool whole_range = entry.lower <= rule.vmin && entry.upper >= rule.vmax;
  return entry.depth >= rule.min_depth && !whole_range;
}

}  // namespace

TableLabels WalkTable(const open_spiel::State& root, const IntervalTable& table,
                      const KeyFunction& keys, Features& features, const LabelRule& rule) {
  TableLabels labels;
  labels.size = features.size();
  const StateText text(root);
  std::string written;
  std::unordered_set<Key, KeyHash> seen;
  // Preorder by an explicit stack: children pushed last first, so that they come off in order.
  std::vector<std::unique_ptr<open_spiel::State>> stack;
  stack.push_back(root.Clone());
  bool at_root = true;
  while (!stack.empty()) {
    const std::unique_ptr<open_spiel::State> state = std::move(stack.back());
    stack.pop_back();
    const Key key = keys(*state);
    if (!seen.insert(key).second) continue;
    const TableEntry* entry = table.Find(key);
    if (entry == nullptr && !at_root) continue;  // the root is not stored, only its children
    if (entry != nullptr && !at_root && Kept(*entry, rule)) {
      const size_t row = labels.features.size();
      labels.features.resize(row + labels.size);
      features.Write(*state, labels.features.data() + row);
      text.Write(*state, written);
      labels.keys.push_back(std::to_string(state->CurrentPlayer()) + "|" + written);
      labels.lower.push_back(entry->lower);
      labels.upper.push_back(entry->upper);
      labels.depth.push_back(entry->depth);
      labels.proven.push_back(entry->horizon ? 0 : 1);
    }
    at_root = false;
    // The children of a decision node stored with one ply left were leaves: none is stored.
    if (entry != nullptr && entry->depth <= 1 && !state->IsChanceNode()) continue;
    const std::vector<open_spiel::Action> actions = state->LegalActions();
    for (auto action = actions.rbegin(); action != actions.rend(); ++action) {
      std::unique_ptr<open_spiel::State> child = state->Child(*action);
      if (!child->IsTerminal()) stack.push_back(std::move(child));
    }
  }
  return labels;
}

}  // namespace spiel_bounded
