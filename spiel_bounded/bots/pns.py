"""The proof-number family: `pns` (df-pn) and `bounded_pns` (bounded multi-outcome PNS).

Both bots play the search's own move: `pns` the proving move when the goal is proved (a win
disproved, it asks for a draw next), else the most promising move by the numbers (an
estimate); `bounded_pns` the pessimistic move (the best proven lower bound, ties broken by the
numbers), epsilon-optimal once the root is solved to within epsilon. Neither uses an
evaluator, and neither has a depth limit: `nodes` and `seconds` limit a move (1 second when
neither is given).
"""

from __future__ import annotations

from typing import Final

from spiel_bounded.bots.spec import LIMIT_PARAMS, SearchSpec, search_bot
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM, GameInfo, load_game
from spiel_bounded.search.outcomes import outcome_reason
from spiel_bounded.search.pns import BoundedPNSSettings, PNSSettings, bounded_pns, pns

_LIMITS: Final = {name: param for name, param in LIMIT_PARAMS.items() if name != "depth"}


def _outcome_reason(info: GameInfo) -> str:
    return outcome_reason(load_game(info.description))


SPECS: Final = (
    search_bot(
        name="pns",
        description=(
            "depth-first proof-number search (df-pn; Allis 1994, Nagai 2002): proves or "
            "disproves that the mover wins (or at least draws; no win, it asks for a draw); "
            "plays a proving move, else the most promising move by the numbers"
        ),
        requirements=TWO_PLAYER_ZERO_SUM,
        search=SearchSpec(function=pns, settings=PNSSettings, limits=_LIMITS, evaluator=False),
        policy=False,
    ),
    search_bot(
        name="bounded_pns",
        description=(
            "bounded multi-outcome proof-number search (Saffidine & Cazenave 2012): df-pn on "
            "value thresholds sharing proven [lower, upper] bounds, stops once the root is "
            "proved within epsilon; plays the pessimistic move"
        ),
        requirements=TWO_PLAYER_ZERO_SUM,
        search=SearchSpec(
            function=bounded_pns,
            settings=BoundedPNSSettings,
            limits=_LIMITS,
            evaluator=False,
            proves=True,
        ),
        policy=False,
        refuse=_outcome_reason,
        plays_note=(
            "with a known small set of terminal values (the win / draw / loss games of "
            "spiel_bounded.search.outcomes.TERMINAL_VALUES, bounded_random_tree with "
            "integer_values=1)"
        ),
    ),
)
