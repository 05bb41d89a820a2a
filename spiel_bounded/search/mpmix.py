"""MP-Mix (Zuckerman, Felner & Kraus, "Mixing search strategies for multi-player games", IJCAI
2009; Zuckerman & Felner, "The MP-Mix algorithm", IEEE TCIAIG 3, 2011) for n-player games.

At every move MP-Mix picks one of three searches by the evaluator's values of the position to
move from. The *leading edge* is the leader's value minus the runner-up's (among equal values
the lower player index leads):

- the mover leads by at least `defensive_threshold`: paranoid (it plays against the coalition
  of all the others), on the bounded alpha-beta engine with `epsilon`;
- another player leads by at least `offensive_threshold`: directed offensive against that
  leader (the mover minimises the leader's value, the others play max^n);
- otherwise max^n.

`mp_mix_choice` is the decision alone; `mp_mix` makes it and runs the chosen search, whose
result it returns unchanged together with the choice (`MPMixResult`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Final

import pyspiel

from spiel_bounded.evaluators.base import Evaluator, check_values
from spiel_bounded.games import Requirements, check_epsilon, require_decision_state
from spiel_bounded.limits import Limits
from spiel_bounded.params import NON_NEGATIVE, check_fields, declared, setting
from spiel_bounded.result import SearchResult
from spiel_bounded.search.alphabeta import AlphaBetaSettings, paranoid
from spiel_bounded.search.maxn import MaxnSettings, directed_offensive, maxn

ALGORITHM: Final = "mp_mix"
MP_MIX_GAMES: Final = Requirements(players=(3, None), chance=True, zero_sum=True)
"""MP-Mix's games: perfect information, 3 or more players, zero-sum, with or without chance."""
PARANOID: Final = "paranoid"
OFFENSIVE: Final = "offensive"
MAXN: Final = "maxn"
STRATEGIES: Final = (PARANOID, OFFENSIVE, MAXN)

_EPSILON: Final = declared(AlphaBetaSettings)["epsilon"]
_ENGINE: Final = declared(AlphaBetaSettings)["engine"]


@dataclass(frozen=True, kw_only=True)
class MPMixSettings:
    """When MP-Mix leaves max^n, by the evaluator's values of the position to move from:
    `leading edge` is the leader's value minus the runner-up's.
    """

    defensive_threshold: float = setting(
        0.2, "the mover leads by at least this: paranoid", NON_NEGATIVE
    )
    offensive_threshold: float = setting(
        0.2, "another player leads by at least this: directed offensive on it", NON_NEGATIVE
    )
    epsilon: float = setting(_EPSILON.default, _EPSILON.doc, _EPSILON.check)
    # The paranoid search's (`AlphaBetaSettings.epsilon`, declared once there); its other
    # settings are `AlphaBetaSettings`' defaults.
    engine: str = setting(_ENGINE.default, _ENGINE.doc, _ENGINE.check)
    # Of the chosen search (`AlphaBetaSettings.engine`, `MaxnSettings.engine`).

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class MPMixChoice:
    """The strategy MP-Mix chose for a move (one of `STRATEGIES`), and the player it attacked
    (offensive only)."""

    strategy: str
    target: int | None = None


@dataclass(frozen=True, kw_only=True)
class MPMixResult(SearchResult):
    """The `SearchResult` of the search MP-Mix chose, unchanged, with the choice.

    Attributes:
        choice: The strategy played and, for directed offensive, its target.
    """

    choice: MPMixChoice


def mp_mix_choice(values: Sequence[float], player: int, settings: MPMixSettings) -> MPMixChoice:
    """Paranoid, offensive or max^n, by the leading edge of `values` (ties: lower index first)."""
    order = sorted(range(len(values)), key=lambda p: (-values[p], p))
    first, second = order[0], order[1]
    edge = values[first] - values[second]
    if first == player and edge >= settings.defensive_threshold:
        return MPMixChoice(PARANOID)
    if first != player and edge >= settings.offensive_threshold:
        return MPMixChoice(OFFENSIVE, first)
    return MPMixChoice(MAXN)


def mp_mix(
    state: pyspiel.State,
    *,
    evaluator: Evaluator,
    limits: Limits | None = None,
    settings: MPMixSettings | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> MPMixResult:
    """MP-Mix from `state` for the player to move: the choice (`mp_mix_choice` over the
    evaluator's values of `state`), then the chosen search under `limits`.

    Args:
        state: A non-terminal decision state of a zero-sum perfect-information game with 3 or
            more players, with or without chance nodes.
        evaluator: Values `state` for the choice, and the leaves of the chosen search.
        limits: Depth / nodes / seconds of the chosen search.
        settings: The thresholds and the paranoid search's epsilon.
        clock: Seconds for the chosen search's time limit (tests inject a fake clock).

    Returns:
        The chosen search's result (`paranoid`'s: bounds on the mover's depth-limited paranoid
        value; `directed_offensive`'s or `maxn`'s: the root's vector in `values`) as an
        `MPMixResult`, whose `choice` says which search it is.

    Raises:
        ValueError: An unsupported game, a terminal or chance state, an epsilon not below the
            game's value range, or evaluator values out of range.
    """
    settings = settings or MPMixSettings()
    info = require_decision_state(state, ALGORITHM, MP_MIX_GAMES)
    check_epsilon(settings.epsilon, info, ALGORITHM)
    values = check_values(evaluator.evaluate(state), evaluator, info)
    choice = mp_mix_choice(values, state.current_player(), settings)
    result: SearchResult
    if choice.strategy == PARANOID:
        ab_settings = AlphaBetaSettings(epsilon=settings.epsilon, engine=settings.engine)
        result = paranoid(
            state, evaluator=evaluator, limits=limits, settings=ab_settings, clock=clock
        )
    elif choice.strategy == OFFENSIVE:
        result = directed_offensive(
            state,
            evaluator=evaluator,
            limits=limits,
            target=choice.target,
            engine=settings.engine,
            clock=clock,
        )
    else:
        result = maxn(
            state,
            evaluator=evaluator,
            limits=limits,
            settings=MaxnSettings(engine=settings.engine),
            clock=clock,
        )
    chosen = {item.name: getattr(result, item.name) for item in fields(SearchResult)}
    return MPMixResult(**chosen, choice=choice)
