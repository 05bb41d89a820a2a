"""The proof-number family: `pns` (df-pn) and `bounded_pns` (bounded multi-outcome PNS).

Both bots play the search's own move (`policy=None`): `pns` the proving move when the goal is
proved, else the most promising move by the numbers (an estimate); `bounded_pns` the
pessimistic move (the best proven lower bound, ties broken by the numbers), epsilon-optimal
once the root is solved to within epsilon. Neither uses an evaluator, and neither has a depth
limit: `nodes` and `seconds` limit a move (1 second when neither is given).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from spiel_bounded.bots.base import SearchBot
from spiel_bounded.bots.spec import LIMIT_PARAMS, SEED_PARAM, BotSpec, limits_from
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM, GameInfo, load_game
from spiel_bounded.params import declared, pick
from spiel_bounded.result import SearchResult
from spiel_bounded.search.pns import (
    SYNTHETIC,
    TERMINAL_VALUES,
    UNKNOWN_OUTCOMES,
    BoundedPNSSettings,
    PNSSettings,
    bounded_pns,
    outcome_reason,
    pns,
)

_LIMITS = {name: param for name, param in LIMIT_PARAMS.items() if name != "depth"}


def _builder(
    settings_type: type, search_function: Callable[..., SearchResult]
) -> Callable[[pyspiel.Game, GameInfo, int, dict[str, Any]], pyspiel.Bot]:
    def build(
        game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
    ) -> pyspiel.Bot:
        settings = settings_type(**pick(settings_type, params))
        limits = limits_from(params)

        def search(state: pyspiel.State) -> SearchResult:
            return search_function(state, limits=limits, settings=settings)

        return SearchBot(game, player_id, search, policy=None, seed=params["seed"])

    return build


@dataclass(frozen=True)
class OutcomeBotSpec(BotSpec):
    """A `BotSpec` that also refuses games without a known small set of terminal values."""

    @property
    def plays(self) -> str:
        return (
            f"{super().plays}, with a known small set of terminal values (the win / draw / loss "
            "games of spiel_bounded.search.pns.TERMINAL_VALUES, bounded_random_tree with "
            "integer_values=1)"
        )

    def reasons_against(self, info: GameInfo) -> list[str]:
        reasons = super().reasons_against(info)
        if reasons:
            return reasons
        values = TERMINAL_VALUES.get(info.name)
        if values is not None:
            if (info.min_utility, info.max_utility) != (values[0], values[-1]):
                reasons.append(UNKNOWN_OUTCOMES)
        elif info.name != SYNTHETIC:
            reasons.append(UNKNOWN_OUTCOMES)
        else:  # known for integer values only: read the tree's parameters
            reason = outcome_reason(load_game(info.description))
            if reason:
                reasons.append(reason)
        return reasons


SPECS: Final = (
    BotSpec(
        name="pns",
        description=(
            "depth-first proof-number search (df-pn; Allis 1994, Nagai 2002): proves or "
            "disproves that the mover wins (or at least draws); plays a proving move, else the "
            "most promising move by the numbers"
        ),
        params={**declared(PNSSettings), **_LIMITS, **SEED_PARAM},
        requirements=TWO_PLAYER_ZERO_SUM,
        build=_builder(PNSSettings, pns),
    ),
    OutcomeBotSpec(
        name="bounded_pns",
        description=(
            "bounded multi-outcome proof-number search (Saffidine & Cazenave 2012): df-pn on "
            "value thresholds sharing proven [pess, opti] bounds, stops once the root is proved "
            "within epsilon; plays the pessimistic move"
        ),
        params={**declared(BoundedPNSSettings), **_LIMITS, **SEED_PARAM},
        requirements=TWO_PLAYER_ZERO_SUM,
        build=_builder(BoundedPNSSettings, bounded_pns),
    ),
)
