// A value network as a native leaf evaluator: the C++ twin of `ValueNetEvaluator`
// (spiel_bounded/evaluators/value_net/). Python loads and checks `model.npz` and hands the
// parameters over; here the features are built from the state as `features.Features` builds
// them and the forward pass runs as `numpy_net.NumpyNetwork` does, in float32 but for the
// first dense layer's sums, in float64 (equal to it within 1e-6: the sums run in another order;
// net_layers.h). MLPs on turn-based games without chance value a position's children from its
// own first-layer sum (`BeginChildren`, child_sums.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "evaluator.h"
#include "features.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

// `ModelConfig`: the network's shape.
struct NetModel {
  std::string kind = "mlp";  // "mlp" or "conv"
  int width = 128;
  int depth = 2;
  int channels = 32;
  int conv_layers = 2;
  std::string inputs = "observation";  // or derived: "threats", "connections" (input_planes.h)
};

// One parameter array: its shape and its float32 entries in C order.
struct NetParam {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

// The network `model` with `params` (named as `Layout.shapes()`: "dense_0/kernel", ...) on
// `game`, its inputs shown as `views` say (`Features`). Throws
// std::invalid_argument naming what is wrong: an unknown kind or view, a game without an
// observation tensor, a conv model over a non-board observation, derived inputs on a game they
// cannot read (threats without lines, connections off hex), a missing, unexpected or misshapen
// parameter.
std::unique_ptr<Evaluator> MakeValueNetEvaluator(const open_spiel::Game& game,
                                                 const NetModel& model, const FeatureViews& views,
                                                 std::map<std::string, NetParam> params);

}  // namespace spiel_bounded
