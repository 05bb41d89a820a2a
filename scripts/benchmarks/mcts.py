"""Suite `mcts`: BABMCTS against OpenSpiel's MCTSBot (Python and C++), in one run.

(a) Simulations per second with the same rollout setting - one uniformly random playout per leaf,
UCT constant 2, no solver - on the same positions. (b) Simulations needed to prove solvable
positions: BABMCTS with epsilon 0 (with and without its alpha-beta windows) against OpenSpiel's
MCTS-Solver (`solve=True`), Python and C++.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyspiel
from absl import flags
from open_spiel.python.algorithms import mcts as python_mcts
from open_spiel.python.algorithms import minimax

from spiel_bounded import (
    BABMCTSSettings,
    Limits,
    MCTSStats,
    babmcts,
    bounded_ab,
    make_evaluator,
    oracles,
    synthetic,
)
from spiel_bounded.evaluators import RolloutEvaluator
from spiel_bounded.native import available as native_available
from spiel_bounded.search.babmcts.common import ENGINE_NATIVE, ENGINE_PYTHON
from spiel_bounded.testing import random_positions

_SIMULATIONS = flags.DEFINE_integer(
    "mcts_simulations",
    4000,
    "(a) BABMCTS simulations per position (C++ MCTS runs 4x, Python MCTS 1/4; scaled down "
    "for games with long playouts).",
)
_POSITIONS = flags.DEFINE_integer("mcts_positions", 3, "(a) Positions per game.")
_CAP = flags.DEFINE_integer("mcts_prove_cap", 100_000, "(b) Simulation cap per proof.")
_SEED = flags.DEFINE_integer("mcts_seed", 2026, "Seed of the positions and the searches.")

UCT_C = 2.0
# (game, plies of random opening, simulation scale: playouts of backgammon take ~2 ms in C++)
RATE_GAMES = (
    ("connect_four", 8, 1.0),
    ("breakthrough", 6, 0.5),
    ("othello", 6, 0.25),
    ("clobber", 4, 1.0),
    ("hex(board_size=7)", 4, 1.0),
    ("pig", 6, 0.5),
    ("backgammon", 4, 0.05),
)


# -- (a) simulations per second ----------------------------------------------------------------


@dataclass(frozen=True)
class Rate:
    simulations: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.simulations / self.seconds


def _median_rates(runs: dict[str, Callable[[int], int]], repeats: int) -> dict[str, Rate]:
    """Runs every `run(repeat)` (which returns its simulation count) once per repeat, the
    engines interleaved so that a change of machine load hits them alike; keeps each one's
    median rate."""
    samples: dict[str, list[Rate]] = {name: [] for name in runs}
    for repeat in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            simulations = run(repeat)
            samples[name].append(Rate(simulations, time.perf_counter() - start))
    return {
        name: sorted(rates, key=lambda rate: rate.per_second)[len(rates) // 2]
        for name, rates in samples.items()
    }


def _babmcts_run(
    states: Sequence[pyspiel.State], simulations: int, engine: str
) -> Callable[[int], int]:
    def run(repeat: int) -> int:
        total = 0
        for i, state in enumerate(states):
            game = state.get_game()
            result = babmcts(
                state,
                evaluator=RolloutEvaluator(game, seed=_SEED.value + 100 * repeat + i),
                settings=BABMCTSSettings(simulations=simulations, uct_c=UCT_C, engine=engine),
                rng=_SEED.value + i,
            )
            assert isinstance(result.stats, MCTSStats)
            total += result.stats.simulations
        return total

    return run


def _python_run(states: Sequence[pyspiel.State], simulations: int) -> Callable[[int], int]:
    def run(repeat: int) -> int:
        total = 0
        for i, state in enumerate(states):
            random_state = np.random.RandomState(_SEED.value + 100 * repeat + i)
            bot = python_mcts.MCTSBot(
                state.get_game(),
                UCT_C,
                simulations,
                python_mcts.RandomRolloutEvaluator(1, random_state),
                solve=False,
                random_state=random_state,
            )
            total += bot.mcts_search(state).explore_count
        return total

    return run


def _cpp_bot(game: pyspiel.Game, simulations: int, solve: bool, seed: int) -> pyspiel.MCTSBot:
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(game, evaluator, UCT_C, simulations, 2000, solve, seed, False)


def _cpp_run(states: Sequence[pyspiel.State], simulations: int) -> Callable[[int], int]:
    def run(repeat: int) -> int:
        total = 0
        for i, state in enumerate(states):
            bot = _cpp_bot(state.get_game(), simulations, False, _SEED.value + 100 * repeat + i)
            total += bot.mcts_search(state).explore_count
        return total

    return run


def _ratio(ours: float | None, theirs: float) -> str:
    return "n/a" if ours is None else f"{ours / theirs:.2f}x"


def _rate_cell(rate: float | None, missing: str) -> str:
    return missing if rate is None else f"{rate:,.0f}"


def _rate_section(repeats: int) -> list[str]:
    lines = [
        "| game | positions | BABMCTS native sims/s | BABMCTS Python sims/s | "
        "Python MCTS sims/s | C++ MCTS sims/s | native / C++ | Python tree / C++ | "
        "native / Python tree |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    native = native_available()
    for name, plies, scale in RATE_GAMES:
        game = pyspiel.load_game(name)
        states = random_positions(game, _POSITIONS.value, plies=plies, seed=_SEED.value)
        simulations = max(20, int(_SIMULATIONS.value * scale))
        runs = {"python_tree": _babmcts_run(states, simulations, ENGINE_PYTHON)}
        if native:
            runs["native"] = _babmcts_run(states, simulations, ENGINE_NATIVE)
        runs["python"] = _python_run(states, max(10, simulations // 4))
        runs["cpp"] = _cpp_run(states, 4 * simulations)
        rates = {key: rate.per_second for key, rate in _median_rates(runs, repeats).items()}
        tree, cpp = rates["python_tree"], rates["cpp"]
        ours = rates.get("native")
        lines.append(
            f"| {name} | {len(states)} | {_rate_cell(ours, 'n/a (not built)')} | "
            f"{tree:,.0f} | {rates['python']:,.0f} | {cpp:,.0f} | {_ratio(ours, cpp)} | "
            f"{tree / cpp:.2f}x | {_ratio(ours, tree)} |"
        )
    return lines


# -- (b) simulations to prove ------------------------------------------------------------------


@dataclass(frozen=True)
class Proof:
    simulations: int | None  # None: not proved within the cap
    value: float | None
    seconds: float

    def cell(self) -> str:
        if self.simulations is None:
            return f"> {_CAP.value:,} ({self.seconds:.1f} s)"
        return f"{self.simulations:,} ({self.seconds:.2f} s)"


def _prove_babmcts(state: pyspiel.State, prune: bool, seed: int) -> Proof:
    start = time.perf_counter()
    result = babmcts(
        state,
        evaluator=RolloutEvaluator(state.get_game(), seed=seed),
        settings=BABMCTSSettings(simulations=_CAP.value, uct_c=UCT_C, prune=prune),
        rng=seed,
    )
    seconds = time.perf_counter() - start
    assert isinstance(result.stats, MCTSStats)
    if result.stats.stopped_by != "solved":
        return Proof(None, None, seconds)
    return Proof(result.stats.simulations, result.lower, seconds)


def _prove_python(state: pyspiel.State, seed: int) -> Proof:
    random_state = np.random.RandomState(seed)
    bot = python_mcts.MCTSBot(
        state.get_game(),
        UCT_C,
        _CAP.value,
        python_mcts.RandomRolloutEvaluator(1, random_state),
        solve=True,
        random_state=random_state,
    )
    start = time.perf_counter()
    root = bot.mcts_search(state)
    seconds = time.perf_counter() - start
    if root.outcome is None:
        return Proof(None, None, seconds)
    return Proof(root.explore_count, float(root.outcome[state.current_player()]), seconds)


def _prove_cpp(state: pyspiel.State, seed: int) -> Proof:
    bot = _cpp_bot(state.get_game(), _CAP.value, True, seed)
    start = time.perf_counter()
    root = bot.mcts_search(state)
    seconds = time.perf_counter() - start
    if not root.outcome:
        return Proof(None, None, seconds)
    return Proof(root.explore_count, float(root.outcome[state.current_player()]), seconds)


def _exact(state: pyspiel.State) -> float:
    """The exact value for the player to move: brute force, expectiminimax or alpha-beta."""
    player = state.current_player()
    if isinstance(state, synthetic.SyntheticState):
        return float(oracles.solve(state)[player])
    if state.get_game().get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        return float(minimax.expectiminimax(state, 1000, None, player)[0])
    zero = make_evaluator("zero", state.get_game())
    result = bounded_ab(state, evaluator=zero)
    assert result.lower == result.upper
    return result.lower


def _prove_positions() -> list[tuple[str, pyspiel.State]]:
    ttt = pyspiel.load_game("tic_tac_toe")
    positions = [("tic_tac_toe, start", ttt.new_initial_state())]
    positions += [
        (f"tic_tac_toe, 2 plies #{i}", s)
        for i, s in enumerate(random_positions(ttt, 3, plies=2, seed=_SEED.value), 1)
    ]
    positions += _connect_four_positions(6)
    for seed in range(3):
        game = synthetic.make_game(branching=4, depth=6, seed=seed)
        positions.append((f"random tree b=4 d=6 #{seed}", game.new_initial_state()))
    for seed in range(2):
        game = synthetic.make_game(branching=3, depth=4, seed=seed, chance=1.0, chance_outcomes=3)
        positions.append((f"random tree b=3 d=4, dice before every ply #{seed}", _decision(game)))
    pig = pyspiel.load_game(_SMALL_PIG)
    positions.append((f"{_SMALL_PIG}, start", pig.new_initial_state()))
    return positions


_SMALL_PIG = "pig(horizon=8,winscore=6,diceoutcomes=3)"


def _decision(game: pyspiel.Game) -> pyspiel.State:
    """The first decision node (chance resolved by the first outcome)."""
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def _connect_four_positions(count: int) -> list[tuple[str, pyspiel.State]]:
    """Random connect_four positions 16-26 plies deep that no side wins within 4 plies and that
    bounded alpha-beta solves within 300,000 nodes (an engine-neutral filter: random play
    mostly leaves immediate wins on the board)."""
    game = pyspiel.load_game("connect_four")
    zero = make_evaluator("zero", game)
    rng = np.random.default_rng(_SEED.value)
    positions: list[tuple[str, pyspiel.State]] = []
    while len(positions) < count:
        state = game.new_initial_state()
        plies = int(rng.integers(16, 27))
        for _ in range(plies):
            state.apply_action(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if state.is_terminal():
            continue
        shallow = bounded_ab(state, evaluator=zero, limits=Limits(depth=4))
        if (shallow.lower, shallow.upper) != (0.0, 0.0):
            continue
        if bounded_ab(state, evaluator=zero, limits=Limits(nodes=300_000)).stats.stopped_by != (
            "solved"
        ):
            continue
        positions.append((f"connect_four, {plies} plies #{len(positions) + 1}", state))
    return positions


def _prove_section(repeats: int) -> tuple[list[str], dict[str, dict[bool, int]]]:
    lines = [
        "| position | exact value | BABMCTS eps=0 | BABMCTS, no windows | Python MCTS-Solver | "
        "C++ MCTS-Solver |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    # Sums of the medians, split by whether the C++ bot can search the game.
    totals = {name: {True: 0, False: 0} for name in ("windows", "bounds", "python", "cpp")}
    for label, state in _prove_positions():
        exact = _exact(state)
        seed = _SEED.value
        windows = [_prove_babmcts(state, True, seed + r) for r in range(repeats)]
        bounds = [_prove_babmcts(state, False, seed + r) for r in range(repeats)]
        python = [_prove_python(state, seed + r) for r in range(repeats)]
        python_game = isinstance(state, synthetic.SyntheticState)
        cpp = [] if python_game else [_prove_cpp(state, seed + r) for r in range(repeats)]
        cells = []
        engines = [("windows", windows), ("bounds", bounds), ("python", python)]
        if not python_game:
            engines.append(("cpp", cpp))
        for name, proofs in engines:
            cell, simulations = _median_cell(proofs, exact)
            cells.append(cell)
            totals[name][not python_game] += simulations
        if python_game:
            cells.append("n/a (Python game)")
        lines.append(f"| {label} | {exact:+.2f} | " + " | ".join(cells) + " |")
    return lines, totals


def _median_cell(proofs: Sequence[Proof], exact: float) -> tuple[str, int]:
    """The median proof's cell and simulations (unproved runs count as the cap); checks every
    proved value."""
    for proof in proofs:
        if proof.value is not None:
            assert abs(proof.value - exact) < 1e-9, (proof, exact)
    ordered = sorted(
        proofs, key=lambda p: p.simulations if p.simulations is not None else _CAP.value + 1
    )
    median = ordered[len(ordered) // 2]
    simulations = median.simulations if median.simulations is not None else _CAP.value
    return median.cell(), simulations


def run(repeats: int) -> list[str]:
    """Runs the suite; returns its Markdown section."""
    rate_lines = _rate_section(repeats)
    prove_lines, totals = _prove_section(repeats)
    return [
        "## BABMCTS vs OpenSpiel's MCTSBot",
        "",
        f"Settings: UCT c = {UCT_C:g}, one uniformly random playout per leaf for every engine "
        "(ours in C++, through a one-simulation `pyspiel.MCTSBot` for the two-player zero-sum "
        "games and `pyspiel.evaluate_bots` elsewhere; Python MCTS's in Python, C++ MCTS's in "
        f"C++), seed {_SEED.value}. BABMCTS's (b) searches use the native tree (C++, "
        "`spiel_bounded.native`; it builds the same tree as the Python one) where it is built.",
        "",
        "### (a) Simulations per second, same positions, no solver",
        "",
        f"{_POSITIONS.value} random openings per game; BABMCTS runs {_SIMULATIONS.value:,} "
        "simulations per position with each engine (`engine=native`: the whole search in C++, "
        "playouts included, on the package's twins of connect_four, breakthrough, othello, "
        "clobber and hex; `engine=python`: the reference tree; both build the same tree) "
        "(scaled by 0.5 for breakthrough and pig, 0.25 for othello, 0.05 for backgammon), C++ "
        "MCTS four times as "
        "many and Python MCTS a quarter, so that each runs long enough to time. The engines "
        "run interleaved, once per repeat each; median of the repeats.",
        "",
        *rate_lines,
        "",
        "### (b) Simulations to prove the value",
        "",
        f"Each cell: the median over {repeats} seeds of the simulations until the root value is "
        f"proved (wall time in brackets), or `> {_CAP.value:,}` when not proved within the cap. "
        "'No windows' is BABMCTS with `prune=False`: the same bounds, selection skips only "
        "children whose value is known exactly (score-bounded MCTS / MCTS-Solver). OpenSpiel's "
        "solver proves a decision node only when a child is a proved win or all children are "
        "proved, and a chance node only when all outcomes have the same proved value. Every "
        "proved value equals the exact value (bounded alpha-beta for connect_four and "
        "tic_tac_toe, OpenSpiel's expectiminimax for pig, brute force for the random trees). "
        "The C++ bot cannot search Python games (random trees).",
        "",
        *prove_lines,
        "",
        "Sums of the medians (an unproved position counts as the cap):",
        "",
        "| positions | BABMCTS eps=0 | BABMCTS, no windows | Python MCTS-Solver | "
        "C++ MCTS-Solver |",
        "| --- | ---: | ---: | ---: | ---: |",
        "| OpenSpiel games (tic_tac_toe, connect_four, pig) | "
        + " | ".join(f"{totals[name][True]:,}" for name in ("windows", "bounds", "python", "cpp"))
        + " |",
        "| random trees | "
        + " | ".join(f"{totals[name][False]:,}" for name in ("windows", "bounds", "python"))
        + " | n/a |",
        "",
    ]
