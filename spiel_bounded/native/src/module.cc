// The Python module `spiel_bounded.native._engine`: each family binds itself in its own file.
#include <pybind11/pybind11.h>

#include "bindings.h"

PYBIND11_MODULE(_engine, m) {
  m.doc() = "The native search engines of spiel_bounded over OpenSpiel's C++ states.";
  spiel_bounded::BindEvaluators(m);
  spiel_bounded::BindAlphaBeta(m);
  spiel_bounded::BindMcts(m);
  spiel_bounded::BindMaxn(m);
  spiel_bounded::BindPns(m);
  spiel_bounded::BindSelfPlay(m);
  spiel_bounded::BindSolvers(m);
}
