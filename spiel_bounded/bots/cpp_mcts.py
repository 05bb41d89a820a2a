"""OpenSpiel's C++ `MCTSBot` with a time limit that can never leave it without a move.

With `max_wall_clock_time > 0`, the C++ bot ignores its simulation count and checks the clock
before every simulation, the first included. Its root gets children only on the second
simulation (the first evaluates the root), so a limit that runs out before two simulations (a
tiny limit, a slow game such as maedn with 4 players, a loaded machine) makes its `Step` take
the best of no children: a segmentation fault. This wrapper searches with the C++ bot and, when
the clock left the root unexpanded, searches again with a fallback bot limited to the two
simulations a move needs (no clock). Without a time limit it is the C++ bot's own `step`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pyspiel

from spiel_bounded.bots.checks import StateCheck
from spiel_bounded.params import (
    FLAG,
    OPTIONAL_POSITIVE,
    POSITIVE,
    POSITIVE_INT,
    check_fields,
    setting,
)

MIN_SIMULATIONS: Final = 2
"""Simulations the C++ bot needs for its root to have children: the first evaluates the root,
the second expands it."""


@dataclass(frozen=True, kw_only=True)
class MCTSSettings:
    """Settings of OpenSpiel's MCTS bots (`mcts`, `python_mcts`) with random rollouts."""

    simulations: int = setting(1000, "simulations per move", POSITIVE_INT)
    uct_c: float = setting(2.0, "UCT exploration constant", POSITIVE)
    rollouts: int = setting(1, "random playouts per leaf", POSITIVE_INT)
    solve: bool = setting(False, "back up proven wins and losses (MCTS-Solver)", FLAG)

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class CppMCTSSettings(MCTSSettings):
    """Settings of the C++ `mcts` bot: those of `MCTSSettings` plus a clock and a memory cap."""

    seconds: float | None = setting(
        None,
        "wall-clock limit per move; when set, simulations is ignored (as in OpenSpiel) but at "
        "least the 2 a move needs are run (None: simulations only)",
        OPTIONAL_POSITIVE,
    )
    max_memory_mb: int = setting(1000, "tree memory cap in MB", POSITIVE_INT)


class CppMCTSBot(pyspiel.Bot):
    """`pyspiel.MCTSBot` that always completes the simulations a move needs.

    With `seconds` set, `simulations` is ignored (as in OpenSpiel) and the search runs until the
    clock runs out, but never fewer than `MIN_SIMULATIONS` simulations. A terminal state, a chance
    node or a state of another game (which would crash the C++ bot) is refused with `ValueError`
    (`state_check`).
    """

    def __init__(
        self,
        game: pyspiel.Game,
        settings: CppMCTSSettings,
        *,
        seed: int = 0,
    ) -> None:
        pyspiel.Bot.__init__(self)
        self.state_check = StateCheck(game, "mcts")
        evaluator = pyspiel.RandomRolloutEvaluator(settings.rollouts, seed)

        def make(max_simulations: int, clock: float) -> pyspiel.MCTSBot:
            return pyspiel.MCTSBot(
                game,
                evaluator,
                settings.uct_c,
                max_simulations,
                settings.max_memory_mb,
                settings.solve,
                seed,
                False,  # verbose
                max_wall_clock_time=clock,
            )

        seconds = settings.seconds
        self._bot = make(settings.simulations, -1.0 if seconds is None else seconds)
        self._fallback = None if seconds is None else make(MIN_SIMULATIONS, -1.0)

    def step(self, state: pyspiel.State) -> int:
        self.state_check(state)
        if self._fallback is None:
            return int(self._bot.step(state))
        root = self._bot.mcts_search(state)
        if root.explore_count < MIN_SIMULATIONS:  # the clock stopped it before the expansion
            root = self._fallback.mcts_search(state)
        # best_child copies the chosen child's subtree; measured at 0.2-6 ms for 0.05-0.5 s
        # searches, the price of never calling C++ BestChild on an unexpanded root.
        return int(root.best_child().action)

    def restart_at(self, state: pyspiel.State) -> None:
        pass  # the C++ bot keeps no tree between moves

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass
