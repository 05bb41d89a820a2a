// The binding functions of the module `spiel_bounded.native._engine`, one file each.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>

#include "budget.h"

namespace spiel_bounded {

// A budget on `clock` (None: a steady clock) that stops for Ctrl-C / SIGTERM: Python's signal
// handlers run at every checkpoint, and an exception they raise ends the search.
Budget MakeBudget(std::optional<int64_t> max_nodes, std::optional<double> seconds,
                  std::optional<pybind11::function> clock);

void BindTwins(pybind11::module_& m);       // bind_twins.cc, called by BindEvaluators
void BindEvaluators(pybind11::module_& m);  // bind_evaluators.cc
void BindAlphaBeta(pybind11::module_& m);   // bind_alphabeta.cc
void BindMcts(pybind11::module_& m);        // bind_mcts.cc
void BindMaxn(pybind11::module_& m);        // bind_maxn.cc
void BindPns(pybind11::module_& m);         // bind_pns.cc: df-pn, bounded PNS, Rivest
void BindSelfPlay(pybind11::module_& m);    // bind_selfplay.cc: a whole self-play game
void BindSolvers(pybind11::module_& m);     // bind_solvers.cc: exact solvers of one game

}  // namespace spiel_bounded
