"""Tools for testing bots and searches: seeded random positions and the conformance check.

`random_positions` is the one sampler the tests, benchmarks and calibration scripts use, so a
figure and the test that guards it look at positions drawn the same way. `check_bot` plays a
registered bot under both of OpenSpiel's drivers and checks what every bot here promises; a
new bot (yours too) is checked with one call. `equivalence_cases` is the alpha-beta engine's
regression grid: 1,248 seeded searches whose fingerprints (`search_fingerprint`: move, bounds,
principal variation, counts) are committed in `results/equivalence/alphabeta.json`, recorded
and compared by `python scripts/bench.py --suites=equivalence` and compared in
`tests/test_equivalence.py`: a change that only makes the engine faster changes none of them.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.games import game_description, load_game
from spiel_bounded.limits import Limits
from spiel_bounded.registry import load_bot
from spiel_bounded.result import SearchResult
from spiel_bounded.search import alphabeta


def random_positions(
    game: pyspiel.Game,
    count: int,
    *,
    plies: int | tuple[int, int],
    seed: int | np.random.Generator,
    count_chance: bool = False,
    decisions_only: bool = True,
) -> list[pyspiel.State]:
    """`count` non-terminal positions reached by uniformly random moves.

    Args:
        game: The game.
        count: Number of positions.
        plies: Actions played from the start: a number, or a range `(low, high)` (high
            excluded) drawn anew for each position.
        seed: Seeds the one generator behind every draw (or is that generator).
        count_chance: Chance outcomes count as plies; by default only decisions do. Chance
            outcomes are sampled by their probabilities either way.
        decisions_only: Sample past a chance node reached after the last ply, so that every
            position is a decision node; False may return chance nodes.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    states: list[pyspiel.State] = []
    while len(states) < count:
        state = game.new_initial_state()
        target = plies if isinstance(plies, int) else int(rng.integers(*plies))
        played = 0
        while not state.is_terminal() and (
            played < target or (decisions_only and state.is_chance_node())
        ):
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                played += count_chance
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                played += 1
        if not state.is_terminal():
            states.append(state)
    return states


DRIVERS: Final = ("checked", "cpp", "python")
"""The ways `check_bot` plays each seat (see `GamePlayed.driver`)."""


class ConformanceError(AssertionError):
    """A bot broke a promise every `pyspiel.Bot` here makes (see `check_bot`)."""


@dataclass(frozen=True)
class GamePlayed:
    """One game of a conformance check.

    Attributes:
        seat: The seat the checked bot played.
        driver: "checked" (our loop: legality of every move, reproducibility), "cpp"
            (`pyspiel.evaluate_bots`) or "python" (`open_spiel.python.algorithms.evaluate_bots`).
        returns: Every player's return.
        actions: Every action applied, chance outcomes included ("checked" driver only).
    """

    seat: int
    driver: str
    returns: tuple[float, ...]
    actions: tuple[int, ...] = ()


def check_bot(
    name: str,
    game: pyspiel.Game | str,
    params: Mapping[str, Any] | None = None,
    *,
    opponent: str = "random",
    opponent_params: Mapping[str, Any] | None = None,
    seats: Sequence[int] | None = None,
    seed: int = 11,
) -> list[GamePlayed]:
    """Plays full games of the registered bot `name` and checks its promises.

    In every seat, against copies of `opponent` in the other seats, the bot plays: twice under
    a checked loop (every move legal, every other bot informed of it, chance sampled from
    `seed`; the same seed must give the same game), once under OpenSpiel's C++ driver
    `pyspiel.evaluate_bots` and once under its Python driver. Every game's returns must lie in
    the game's utility range and, for zero-sum and constant-sum games, sum to the constant.
    Then, in the first seat, the bot must move in a state of the same game loaded anew (another
    game object), and refuse with `ValueError` a terminal state, a chance node (games with
    chance) and a state of another game, neither crashing nor answering with a move.

    Args:
        name: A registered bot (`list_bots`).
        game: The game, or its string.
        params: The bot's parameters (small limits keep the check fast; a node or simulation
            limit rather than a time limit keeps it reproducible). `seed` is set per game.
        opponent: The registered bot in the other seats.
        opponent_params: Its parameters.
        seats: The seats the bot plays (None: every seat).
        seed: Seeds the bots and the chance outcomes.

    Returns:
        Every game played.

    Raises:
        ConformanceError: An illegal move, a game that differs on replay with the same seed,
            returns out of range or off the constant sum, or a state the bot should refuse that
            it did not refuse with `ValueError` (or one it should accept that it refused).
        ValueError: The bot cannot play the game, or a bad name or parameter.
    """
    from open_spiel.python.algorithms import evaluate_bots as python_driver

    loaded = load_game(game)
    num_players = loaded.num_players()

    def bots(seat: int, game_seed: int) -> list[pyspiel.Bot]:
        return [
            load_bot(name, loaded, player, **{**(params or {}), "seed": game_seed})
            if player == seat
            else load_bot(
                opponent, loaded, player, **{**(opponent_params or {}), "seed": game_seed + player}
            )
            for player in range(num_players)
        ]

    played = []
    for seat in range(num_players) if seats is None else seats:
        game_seed = seed + 101 * seat
        first = _play_checked(bots(seat, game_seed), loaded, game_seed)
        again = _play_checked(bots(seat, game_seed), loaded, game_seed)
        if first != again:
            raise ConformanceError(
                f"{name} in seat {seat} of {game_description(loaded)}: the same seed gave two "
                f"different games ({len(first[0])} and {len(again[0])} actions)"
            )
        played.append(GamePlayed(seat, "checked", first[1], first[0]))
        cpp = pyspiel.evaluate_bots(loaded.new_initial_state(), bots(seat, game_seed), game_seed)
        played.append(GamePlayed(seat, "cpp", tuple(cpp)))
        python = python_driver.evaluate_bots(
            loaded.new_initial_state(), bots(seat, game_seed), np.random.RandomState(game_seed)
        )
        played.append(GamePlayed(seat, "python", tuple(float(r) for r in python)))
    for game_played in played:
        _check_returns(loaded, game_played, name)
    probed = seats[0] if seats else 0
    _check_refusals(
        name,
        loaded,
        lambda: load_bot(name, loaded, probed, **{**(params or {}), "seed": seed}),
        probed,
        seed,
    )
    return played


OTHER_GAMES: Final = ("tic_tac_toe", "connect_four")
"""The conformance check offers a bot a state of the first of these that is not its game."""


def _check_refusals(
    name: str, game: pyspiel.Game, make_bot: Callable[[], pyspiel.Bot], seat: int, seed: int
) -> None:
    """The bot moves in a state of `game` loaded anew and refuses the states it cannot move in."""
    where = f"{name} in seat {seat} of {game_description(game)}"
    reloaded = pyspiel.load_game(str(game))
    samples = _sample_states(reloaded, seat, seed)
    own = samples.own
    try:
        action = make_bot().step(own)
    except Exception as error:  # any refusal of a state it must accept is the failure
        raise ConformanceError(
            f"{where}: refused a state of the same game loaded again (another game object): "
            f"{type(error).__name__}: {error}"
        ) from error
    if action not in own.legal_actions():
        raise ConformanceError(f"{where}: chose illegal action {action} in a reloaded game")
    other = next(name for name in OTHER_GAMES if name != game.get_type().short_name)
    refused = [
        ("a terminal state", samples.terminal),
        (f"a state of {other}", load_game(other).new_initial_state()),
    ]
    if samples.chance is not None:
        refused.append(("a chance node", samples.chance))
    if samples.other is not None:
        refused.append(("a state where another player is to move", samples.other))
    for what, state in refused:
        try:
            action = make_bot().step(state)
        except ValueError:
            continue
        except Exception as error:
            raise ConformanceError(
                f"{where}: asked to move in {what}, it raised {type(error).__name__} ({error}); "
                "a bot must refuse it with ValueError"
            ) from error
        raise ConformanceError(
            f"{where}: asked to move in {what}, it returned action {action}; a bot must refuse "
            "it with ValueError"
        )


@dataclass(frozen=True)
class _Samples:
    """States drawn from seeded random games for the refusal checks."""

    own: pyspiel.State  # a decision state with the seat to move
    terminal: pyspiel.State
    chance: pyspiel.State | None  # None: no chance in the game, or none met
    other: pyspiel.State | None  # another player to move; None in a one-player game


def _sample_states(game: pyspiel.Game, seat: int, seed: int) -> _Samples:
    """From seeded random games: the states of `_Samples` (100 games at most)."""
    rng = np.random.default_rng(seed)
    own: pyspiel.State | None = None
    other: pyspiel.State | None = None
    chance: pyspiel.State | None = None
    has_chance = game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
    for _ in range(100):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                chance = chance or state.clone()
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            else:
                if state.current_player() == seat:
                    own = own or state.clone()
                elif state.current_player() >= 0:
                    other = other or state.clone()
                state.apply_action(int(rng.choice(state.legal_actions())))
        found_other = other is not None or game.num_players() == 1
        if own is not None and found_other and (chance is not None or not has_chance):
            break
    if own is None:
        raise ConformanceError(f"seat {seat} never moved in 100 random games of {game}")
    return _Samples(own, state, chance, other)


def _play_checked(
    bots: Sequence[pyspiel.Bot], game: pyspiel.Game, seed: int
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    actions: list[int] = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(outcomes, p=probabilities))
            for bot in bots:
                bot.inform_action(state, pyspiel.PlayerId.CHANCE, action)
        else:
            player = state.current_player()
            action = bots[player].step(state)
            if action not in state.legal_actions():
                raise ConformanceError(
                    f"player {player} chose illegal action {action} in {game_description(game)} "
                    f"after {len(actions)} actions:\n{state}"
                )
            for other, bot in enumerate(bots):
                if other != player:
                    bot.inform_action(state, player, action)
        actions.append(action)
        state.apply_action(action)
    return tuple(actions), tuple(state.returns())


def _check_returns(game: pyspiel.Game, played: GamePlayed, name: str) -> None:
    where = f"{name} in seat {played.seat} of {game_description(game)} ({played.driver} driver)"
    low, high = game.min_utility(), game.max_utility()
    if not all(low - 1e-9 <= value <= high + 1e-9 for value in played.returns):
        raise ConformanceError(f"{where}: returns {played.returns} outside [{low}, {high}]")
    utility = game.get_type().utility
    if utility in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM):
        total = game.utility_sum() if utility == pyspiel.GameType.Utility.CONSTANT_SUM else 0.0
        if not math.isclose(sum(played.returns), total, abs_tol=1e-9):
            raise ConformanceError(f"{where}: returns {played.returns} do not sum to {total}")


# -- the alpha-beta equivalence grid -------------------------------------------------------------

EQUIVALENCE_EPSILONS: Final = (0.0, 0.1, 0.4)
EQUIVALENCE_NODE_LIMITS: Final = (None, 1500)


@dataclass(frozen=True)
class PositionSet:
    """Seeded positions of one game and the alpha-beta searches run on them."""

    game: str
    count: int
    plies: tuple[int, int]
    depth: int
    searches: tuple[str, ...]
    seed: int = 2026
    label: str = ""  # names the set in case keys when the game has several sets

    @property
    def name(self) -> str:
        return self.label or self.game

    def states(self) -> list[pyspiel.State]:
        """The positions, drawn afresh (the same ones every time)."""
        return random_positions(load_game(self.game), self.count, plies=self.plies, seed=self.seed)


EQUIVALENCE_POSITIONS: Final = (
    PositionSet("tic_tac_toe", 4, (0, 4), 9, ("bounded_ab",)),
    PositionSet("connect_four", 6, (4, 14), 7, ("bounded_ab",)),
    PositionSet("breakthrough", 4, (2, 10), 3, ("bounded_ab",)),
    PositionSet("pig(winscore=20)", 3, (2, 12), 3, ("bounded_star1", "bounded_star2")),
    PositionSet("breakthrough", 2, (6, 16), 4, ("bounded_ab",), seed=7, label="breakthrough@4"),
    PositionSet("chinese_checkers(players=3)", 2, (6, 30), 2, ("paranoid",)),
    PositionSet("maedn(players=3)", 2, (10, 60), 2, ("paranoid",)),
)
"""The position sets of the grid (1,248 searches in all)."""

AlphaBetaSearch = Callable[..., SearchResult]
"""`bounded_ab`'s signature: `(state, *, evaluator, limits, settings) -> SearchResult`."""


@dataclass(frozen=True)
class EquivalenceCase:
    """One search of the alpha-beta equivalence grid; `key` names it in the fingerprints."""

    positions: PositionSet
    index: int
    search: str
    epsilon: float
    iterative_deepening: bool
    transpositions: bool
    move_ordering: bool
    nodes: int | None

    @property
    def key(self) -> str:
        return (
            f"{self.positions.name}#{self.index}|{self.search}|eps={self.epsilon:g}|"
            f"id={int(self.iterative_deepening)}|tt={int(self.transpositions)}|"
            f"order={int(self.move_ordering)}|nodes={self.nodes}"
        )

    def run(
        self, search: AlphaBetaSearch | None = None, *, engine: str = "python"
    ) -> dict[str, Any]:
        """Runs the case (with `search` in place of the package's function of its name, which
        must take the same arguments) on `engine` ("python" or "native"; a game without a C++
        heuristic has it called back) and returns its fingerprint (`search_fingerprint`)."""
        state = _equivalence_state(self.positions, self.index)
        function = search or getattr(alphabeta, self.search)
        result = function(
            state,
            evaluator=make_evaluator("heuristic", state.get_game()),
            limits=Limits(depth=self.positions.depth, nodes=self.nodes),
            settings=alphabeta.AlphaBetaSettings(
                epsilon=self.epsilon,
                iterative_deepening=self.iterative_deepening,
                transpositions=self.transpositions,
                move_ordering=self.move_ordering,
                engine=engine,
            ),
        )
        return search_fingerprint(result)


def equivalence_cases() -> list[EquivalenceCase]:
    """The whole grid, in a fixed order."""
    return [
        EquivalenceCase(positions, index, search, epsilon, deepening, table, ordering, nodes)
        for positions in EQUIVALENCE_POSITIONS
        for index, search in itertools.product(range(positions.count), positions.searches)
        for epsilon, deepening, table, ordering, nodes in itertools.product(
            EQUIVALENCE_EPSILONS,
            (True, False),
            (True, False),
            (True, False),
            EQUIVALENCE_NODE_LIMITS,
        )
    ]


_EQUIVALENCE_STATES: dict[PositionSet, list[pyspiel.State]] = {}


def _equivalence_state(positions: PositionSet, index: int) -> pyspiel.State:
    if positions not in _EQUIVALENCE_STATES:
        _EQUIVALENCE_STATES[positions] = positions.states()
    return _EQUIVALENCE_STATES[positions][index].clone()


def search_fingerprint(result: SearchResult) -> dict[str, Any]:
    """What a speed change must not change in a `SearchResult`: move, bounds, every root child's
    bounds, principal variation and counts, in the JSON forms the fingerprint file holds."""
    stats = result.stats
    fingerprint = {
        "action": result.action,
        "lower": result.lower,
        "upper": result.upper,
        "children": sorted([action, *bounds] for action, bounds in result.children.items()),
        "pv": list(result.pv),
        "nodes": stats.nodes,
        "evaluations": stats.evaluations,
        "cutoffs": stats.cutoffs,
        "tt_hits": stats.tt_hits,
        "depth": stats.depth,
        "stopped_by": stats.stopped_by,
    }
    return json.loads(json.dumps(fingerprint))


def fingerprint_differences(
    key: str, expected: Mapping[str, Any] | None, found: Mapping[str, Any]
) -> list[str]:
    """One line per field of the fingerprint `found` that differs from `expected` (empty:
    identical), e.g. `connect_four#0|...: nodes 1200 -> 1201`."""
    if expected is None:
        return [f"{key}: not in the fingerprints"]
    return [
        f"{key}: {name} {expected[name]!r} -> {found.get(name)!r}"
        for name in expected
        if expected[name] != found.get(name)
    ]
