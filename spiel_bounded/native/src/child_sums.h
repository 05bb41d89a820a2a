// The first dense layer's sums of a position's children from the parent's (value_net.cc): what
// lets a value network value the children at a search's depth limit (`Evaluator::BeginChildren`)
// at the cost of the layers above the first. A child's observation differs from its parent's in
// a few entries (a placement game: two), so its sum is the parent's plus the rows of those
// entries and of its mover's bit, in float64 (`DenseLayer::Add`). A network reading derived
// inputs (input_planes.h) adds a child's: in a placement game all of them (threat planes, from the
// parent's board), else those that differ from the parent's, whose sum holds the parent's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "features.h"
#include "input_planes.h"
#include "keys.h"
#include "net_layers.h"
#include "open_spiel/observer.h"
#include "open_spiel/spiel.h"
#include "placement.h"
#include "territory_planes.h"
#include "threat_planes.h"

namespace spiel_bounded {

class ChildSums {
 public:
  // For the network whose first layer is `first`, reading the observations `features` writes
  // (as its views show them) of `game`, a turn-based game without chance, and after the mover
  // bits the `planes` derived from the observation where not null: all outlive this.
  ChildSums(const open_spiel::Game& game, const DenseLayer& first, Features& features,
            const InputPlanes* planes = nullptr);

  // A search from `root` starts (the parents' sums of the last one are dropped).
  void StartSearch(const open_spiel::State& root);
  // The children of `parent`, a decision node, come next; it stays alive until the last
  // `Prepare`. With `undo` (the game's undo is exact) a child that is not a placement is made
  // by applying its move to `parent` and undoing it, not by a copy (in chinese_checkers a copy
  // costs more the longer the game: its states copy an undo record per move played).
  void Begin(open_spiel::State& parent, bool undo);
  // The child of `move`: nullptr when its first layer's sum comes next (`Sum`); or the child
  // itself when it is terminal or not a decision node (kept until the next call), which the
  // caller values.
  const open_spiel::State* Prepare(open_spiel::Action move);
  // The first layer's sum of the prepared child into `sum` (`first.outputs()` entries).
  void Sum(double* sum) const;
  // Whether the children have keys (placement games with exact sums).
  bool keyed() const { return keyed_; }
  // The prepared child's key where `keyed()`: a 128-bit hash of the first layer's input (the
  // entries that are 1; placement observations are 0 or 1), so that equal keys mean equal sums
  // but for hash collisions (about n^2 / 2^129 for n keys).
  const Key& key() const { return child_key_; }

 private:
  // The parent observed by one observer, and the first layer's sum over it without the mover
  // bits (with its derived inputs where `diff_planes_`).
  struct Base {
    bool ready = false;  // observes the current parent
    bool held = false;   // observes some parent
    std::vector<float> observation;
    std::vector<double> sum;
    Key key;                       // where `keyed_`: of the observation, without the mover bits
    std::vector<uint64_t> planes;  // where `diff_planes_`: its derived inputs, packed bits
  };
  Base& Observed(int observer);
  bool PrepareChild(const open_spiel::State& child);
  void Update(Base& base);
  void Refresh(Base& base);
  void RefreshKey(Base& base) const;
  int Changes(const float* before, int mover);
  void PlaneBits();
  int PlaneChanges(const std::vector<uint64_t>& before);
  void UpdatePlanes(Base& base);

  const DenseLayer& first_;
  Features& features_;
  const float* observed_;    // where `features_` observes
  int size_;                 // of the observation
  int limit_;                // the most terms a sum is brought up to date by (more: made afresh)
  bool exact_;               // `first.ExactSums()`: sums brought up to date equal those made afresh
  std::vector<Base> bases_;  // by observer (one for placement games: the same for all)
  std::optional<Placement> placement_;
  bool keyed_;                      // placement games with exact sums: children have keys
  std::vector<Key> entry_keys_;     // where `keyed_`: of a 1 in each first layer's input entry
  std::vector<float> empty_board_;  // placement games: the initial observation
  bool from_history_ = false;       // placement games: boards follow the histories
  std::vector<open_spiel::State::PlayerAction> played_;  // the history `bases_[0]` observes
  open_spiel::State* parent_ = nullptr;
  bool undo_ = false;
  int mover_ = 0;  // the parent's player to move
  std::unique_ptr<open_spiel::State> child_;
  std::vector<int> rows_;  // terms: rows of the first layer's kernel and their factors
  std::vector<float> xs_;
  // The prepared child's terms over the sum of `prepared_base_`: in placement games the three
  // of their own (`count_` -1), else `count_` of `rows_` and `xs_`.
  const Base* prepared_base_ = nullptr;
  int placement_rows_[3] = {0, 0, 0};
  float placement_xs_[3] = {0.0f, 0.0f, 0.0f};
  int count_ = 0;
  Key child_key_;
  // Where the network reads derived inputs: the prepared child's (a function of its observation,
  // so the keys need not cover them) as terms: in placement games the input entries that are 1,
  // each times 1; else those that differ from its base's (`diff_planes_`), times +1 or -1.
  const InputPlanes* planes_;
  const ThreatPlanes* threats_;         // `planes_` where they are threat planes
  const TerritoryPlanes* territory_;    // `planes_` where they are territory planes
  int plane_offset_;                    // their first input entry
  ThreatPlanes::Stones parent_stones_;  // placement games with threat planes: the parent's board
  bool diff_planes_ = false;     // outside placement games: a base's sum holds its derived inputs
  std::vector<int> plane_rows_;  // the prepared child's terms
  std::vector<float> plane_xs_;  // their factors (1 in placement games)
  std::vector<uint64_t> bits_;   // `PlaneBits`: the derived inputs of `observed_`, packed
  std::vector<int> entries_;     // scratch of `PlaneBits`
  int plane_count_ = 0;
};

}  // namespace spiel_bounded
