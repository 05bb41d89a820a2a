// The positions a search's transposition table bounded: the native twin of
// `spiel_bounded.search.table_walk` (the training labels of a search tree, issue 39).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "features.h"
#include "interval_table.h"
#include "keys.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

// Which entries become labels: those stored with at least `min_depth` plies left whose bounds do
// not span the whole value range [vmin, vmax].
struct LabelRule {
  int min_depth = 1;
  double vmin = -1.0;
  double vmax = 1.0;
};

// One row per position, in the order of the walk.
struct TableLabels {
  int size = 0;                   // floats of one position's features
  std::vector<float> features;    // [positions][size]
  std::vector<std::string> keys;  // "mover|str(state)", as the self-play data keys positions
  std::vector<double> lower;      // bounds on the value of the search's root player
  std::vector<double> upper;
  std::vector<int32_t> depth;   // plies left when the bounds were stored
  std::vector<uint8_t> proven;  // no evaluator below: bounds on the game value
};

// Walks from `root` depth-first (children in `LegalActions()` order, each position once, by
// key) through the root and the positions `table` holds an entry for (the root is not stored;
// the children of a decision node stored with one ply left are not looked up: leaves there),
// and labels those below the root that
// `rule` keeps. `keys` must be the key function the table was filled with.
TableLabels WalkTable(const open_spiel::State& root, const IntervalTable& table,
                      const KeyFunction& keys, Features& features, const LabelRule& rule);

}  // namespace spiel_bounded
