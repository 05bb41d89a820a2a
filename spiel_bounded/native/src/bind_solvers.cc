// Binding of the exact game solvers: connect_four's weak solver (connect_four_solver.h) and
// clobber's (clobber_solver.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "bindings.h"
#include "budget.h"
#include "clobber_solver.h"
#include "connect_four_solver.h"

namespace py = pybind11;

namespace spiel_bounded {
namespace {

// `solve(budget)` on a budget of `max_nodes` and `seconds`, or None when the budget ran out.
template <typename Result, typename Solve>
std::optional<Result> Within(std::optional<int64_t> max_nodes, std::optional<double> seconds,
                             Solve&& solve) {
  Budget budget = MakeBudget(max_nodes, seconds, std::nullopt);
  try {
    return solve(budget);
  } catch (const SearchStopped&) {
    return std::nullopt;
  }
}

// Binds `solver.Method(moves, budget)` as `name(moves, *, max_nodes=None, seconds=None)`,
// answering None when the budget runs out.
template <typename Solver, typename Move, typename Result>
void DefQuery(py::class_<Solver>& solver_class, const char* name,
              Result (Solver::*method)(const std::vector<Move>&, Budget&)) {
  solver_class.def(
      name,
      [method](Solver& solver, const std::vector<Move>& moves, std::optional<int64_t> max_nodes,
               std::optional<double> seconds) {
        return Within<Result>(max_nodes, seconds,
                              [&](Budget& budget) { return (solver.*method)(moves, budget); });
      },
      py::arg("moves"), py::kw_only(), py::arg("max_nodes") = py::none(),
      py::arg("seconds") = py::none());
}

}  // namespace

void BindSolvers(py::module_& m) {
  py::class_<ConnectFourSolver> connect_four(m, "ConnectFourSolver");
  connect_four
      .def(py::init<int, int, int>(), py::arg("rows"), py::arg("columns"),
           py::arg("table_bits") = 22)
      .def_property_readonly("nodes", &ConnectFourSolver::nodes);
  DefQuery(connect_four, "solve", &ConnectFourSolver::Solve);
  DefQuery(connect_four, "move_values", &ConnectFourSolver::MoveValues);
  m.attr("CONNECT_FOUR_FULL") = ConnectFourSolver::kFull;

  py::class_<ClobberSolver> clobber(m, "ClobberSolver");
  clobber.def(py::init<int, int, int>(), py::arg("rows"), py::arg("columns"), py::arg("table_bits"))
      .def_property_readonly("nodes", &ClobberSolver::nodes);
  DefQuery(clobber, "solve", &ClobberSolver::Solve);
  DefQuery(clobber, "move_values", &ClobberSolver::MoveValues);
  DefQuery(clobber, "best_move", &ClobberSolver::BestMove);
}

}  // namespace spiel_bounded
