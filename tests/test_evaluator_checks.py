"""Every search checks every evaluator value, in every seat, with the same verdict.

The searches inline the check for speed (`search.alphabeta.engine.leaf_function`, the BABMCTS tree's
`_evaluate`); these tests hold the inlined copies and the named `check_values` to the same
verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyspiel
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spiel_bounded import load_bot
from spiel_bounded.evaluators import check_values
from spiel_bounded.games import game_info

TTT = pyspiel.load_game("tic_tac_toe")
PIG = pyspiel.load_game("pig(winscore=10)")


class FixedEvaluator:
    """Returns the same object for every state."""

    name = "fixed"

    def __init__(self, values: object) -> None:
        self.values = values

    def evaluate(self, state: pyspiel.State) -> Sequence[float]:
        return self.values  # type: ignore[return-value]


BAD_VALUES = [
    ((math.nan, 0.0), r"returned nan"),
    ((0.0, math.nan), r"returned nan"),
    ((2.0, -2.0), r"returned 2.0 on tic_tac_toe, outside the value range \[-1.0, 1.0\]"),
    ((0.5,), r"returned 1 values on tic_tac_toe, which has 2 players"),
    ((0.5, -0.5, 0.0), r"returned 3 values"),
    ([], r"returned 0 values"),
    (0.5, r"returned 0.5 on tic_tac_toe; expected 2 numbers in \[-1.0, 1.0\], one per player"),
    (None, r"returned None"),
    ("ab", r"returned 'ab'"),
    ({0: 0.5, 1: 2.0}, r"returned 2.0"),
    (("x", 0.0), r"returned \('x', 0.0\)"),
]
BOTS = [
    ("bounded_ab", {"depth": 2}),
    ("bounded_star1", {"depth": 2}),
    ("openspiel_ab", {"depth": 2}),
    ("babmcts", {"simulations": 20}),
]


@pytest.mark.parametrize(("name", "params"), BOTS)
@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize(("values", "message"), BAD_VALUES)
def test_bad_values_are_refused_by_every_search_in_every_seat(
    name: str, params: dict[str, int], seat: int, values: object, message: str
) -> None:
    bot = load_bot(name, TTT, seat, evaluator=FixedEvaluator(values), **params)
    state = TTT.new_initial_state()
    if seat == 1:
        state.apply_action(4)
    with pytest.raises(ValueError, match=r"evaluator 'fixed' " + message):
        bot.step(state)


@pytest.mark.parametrize(("name", "params"), BOTS)
@pytest.mark.parametrize("seat", [0, 1])
def test_good_values_of_any_sequence_type_are_accepted(
    name: str, params: dict[str, int], seat: int
) -> None:
    for values in ((0.25, -0.25), [0.25, -0.25], np.array([0.25, -0.25]), (1, -1)):
        bot = load_bot(name, TTT, seat, evaluator=FixedEvaluator(values), **params)
        state = TTT.new_initial_state()
        if seat == 1:
            state.apply_action(4)
        assert bot.step(state) in state.legal_actions()


_number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.integers(min_value=-3, max_value=3),
)


@given(values=st.lists(_number, min_size=0, max_size=3), seat=st.integers(0, 1))
def test_inlined_checks_agree_with_check_values(values: list[float], seat: int) -> None:
    info = game_info(PIG)
    low, high = info.min_utility, info.max_utility
    scaled = [value * high / 3 if math.isfinite(value) else value for value in values]
    try:
        check_values(scaled, FixedEvaluator(scaled), info)  # type: ignore[arg-type]
        accepted = True
    except ValueError:
        accepted = False
    state = PIG.new_initial_state()
    while state.is_chance_node() or state.current_player() != seat:
        state.apply_action(state.legal_actions()[0])
    for name in ("bounded_star1", "babmcts"):
        params = {"depth": 1} if name == "bounded_star1" else {"simulations": 3}
        bot = load_bot(name, PIG, seat, evaluator=FixedEvaluator(scaled), **params)
        try:
            bot.step(state)
            searched = True
        except ValueError:
            searched = False
        assert searched == accepted, (name, scaled, low, high)
