// Bindings of the C++ twins that need more than a game to build: the seeded playouts, the
// value network (its parameters come from Python as numpy arrays), and the games' own twins
// (`twins.h`), as what they answer.
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
#include "twins.h"
#include "value_net.h"

namespace py = pybind11;

namespace spiel_bounded {

namespace {

// What a state answers, as a dict of Python values.
py::dict Answers(const open_spiel::State& state) {
  py::dict answers;
  answers["player"] = state.CurrentPlayer();
  answers["terminal"] = state.IsTerminal();
  answers["returns"] = state.Returns();
  answers["legal"] = state.LegalActions();
  answers["text"] = state.ToString();
  answers["history"] = state.History();
  answers["move_number"] = state.MoveNumber();
  if (!state.IsTerminal()) {
    const int player = state.CurrentPlayer();
    if (state.GetGame()->GetType().provides_information_state_string) {
      answers["information_state"] = state.InformationStateString(player);
    }
    answers["observation_string"] = state.ObservationString(player);
    std::vector<float> tensor(state.GetGame()->ObservationTensorSize());
    state.ObservationTensor(player, absl::MakeSpan(tensor));
    answers["observation"] = tensor;
    std::vector<std::string> names;
    for (open_spiel::Action move : state.LegalActions()) {
      names.push_back(state.ActionToString(player, move));
    }
    answers["action_strings"] = names;
  }
  return answers;
}

}  // namespace

void BindTwins(py::module_& m) {
  m.def(
      "twin",
      [](const open_spiel::State& state) -> py::object {
        std::unique_ptr<open_spiel::State> board = TwinOf(state);
        if (!board) return py::none();
        py::dict answers = Answers(*board);
        // Each child by ApplyAction, then taken back by UndoAction.
        py::list children;
        if (!board->IsTerminal()) {
          const int player = board->CurrentPlayer();
          for (open_spiel::Action move : board->LegalActions()) {
            board->ApplyAction(move);
            children.append(Answers(*board));
            board->UndoAction(player, move);
          }
        }
        answers["children"] = children;
        answers["after_undo"] = Answers(*board);
        return answers;
      },
      py::arg("state"),
      "What the twin of a state (`twins.h`) answers, with its children (played and taken "
      "back), as dicts; None where the state has no twin.");
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
         int conv_layers, const std::string& inputs, const std::string& chance_view,
         const std::string& lifted_view, const py::dict& params) -> std::shared_ptr<Evaluator> {
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
        NetModel model{kind, width, depth, channels, conv_layers, inputs};
        try {
          return MakeValueNetEvaluator(game, model, {chance_view, lifted_view}, std::move(arrays));
        } catch (const std::invalid_argument& error) {
          throw py::value_error(error.what());
        }
      },
      py::arg("game"), py::arg("kind"), py::arg("width"), py::arg("depth"), py::arg("channels"),
      py::arg("conv_layers"), py::arg("inputs"), py::arg("chance_view"), py::arg("lifted_view"),
      py::arg("params"),
      "`ValueNetEvaluator` in C++: the model config's fields, the chance and lifted views, and the "
      "parameters (name -> array, as `Layout.shapes()`); ValueError names a misfit.");
}

}  // namespace spiel_bounded
