// Bindings of the C++ twins that need more than a game to build: the seeded playouts and the
// value network (its parameters come from Python as numpy arrays).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "evaluator.h"
#include "heuristics_games.h"
#include "open_spiel/spiel.h"
#include "value_net.h"

namespace py = pybind11;

namespace spiel_bounded {

void BindTwins(py::module_& m) {
  m.def(
      "seeded_rollout_evaluator",
      [](int rollouts) -> std::shared_ptr<Evaluator> {
        if (rollouts < 1) throw py::value_error("rollouts must be >= 1");
        return MakeSeededRolloutEvaluator(rollouts);
      },
      py::arg("rollouts"),
      "`SeededRolloutEvaluator`: playouts of OpenSpiel's random bots seeded by the state.");
  m.def(
      "value_net_evaluator",
      [](const open_spiel::Game& game, const std::string& kind, int width, int depth, int channels,
         int conv_layers, const std::string& chance_view,
         const py::dict& params) -> std::shared_ptr<Evaluator> {
        std::map<std::string, NetParam> arrays;
        for (const auto& item : params) {
          const auto name = item.first.cast<std::string>();
          // float32 as `NumpyNetwork` computes (a float64 array is rounded the same way).
          const auto array =
              py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(item.second);
          if (!array)
            throw py::value_error("value network: parameter '" + name + "' is not an array");
          NetParam param;
          param.shape.assign(array.shape(), array.shape() + array.ndim());
          param.data.assign(array.data(), array.data() + array.size());
          arrays.emplace(name, std::move(param));
        }
        NetModel model{kind, width, depth, channels, conv_layers};
        try {
          return MakeValueNetEvaluator(game, model, chance_view, std::move(arrays));
        } catch (const std::invalid_argument& error) {
          throw py::value_error(error.what());
        }
      },
      py::arg("game"), py::arg("kind"), py::arg("width"), py::arg("depth"), py::arg("channels"),
      py::arg("conv_layers"), py::arg("chance_view"), py::arg("params"),
      "`ValueNetEvaluator` in C++: the model config's fields, the chance view, and the "
      "parameters (name -> array, as `Layout.shapes()`); ValueError names a misfit.");
}

}  // namespace spiel_bounded
