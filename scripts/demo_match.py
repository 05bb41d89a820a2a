"""Demonstration match: bounded alpha-beta against OpenSpiel's C++ MCTS.

Plays tic_tac_toe and connect_four, both seatings, prints each game's returns and the search
statistics of bounded alpha-beta's first move. Run with `.venv/bin/python scripts/demo_match.py`
(`make run` or `make test` builds .venv first).
"""

from __future__ import annotations

from collections.abc import Sequence

import pyspiel
from absl import flags

from spiel_bounded import commandline, load_bot

_GAMES = flags.DEFINE_list("games", ["tic_tac_toe", "connect_four"], "OpenSpiel game strings.")
_SECONDS = flags.DEFINE_float("seconds", 0.5, "Time per move for bounded_ab.")
_EPSILON = flags.DEFINE_float("epsilon", 0.0, "Epsilon of bounded_ab.")
_SIMULATIONS = flags.DEFINE_integer("simulations", 2000, "Simulations per move for C++ MCTS.")
_SEED = flags.DEFINE_integer("seed", 1, "Base seed.")


def _play(game: pyspiel.Game, seat_of_ab: int, seed: int) -> None:
    bots: list[pyspiel.Bot] = []
    ab_bot = load_bot(
        "bounded_ab", game, seat_of_ab, epsilon=_EPSILON.value, seconds=_SECONDS.value, seed=seed
    )
    for player in range(game.num_players()):
        if player == seat_of_ab:
            bots.append(ab_bot)
        else:
            bots.append(load_bot("mcts", game, player, simulations=_SIMULATIONS.value, seed=seed))
    state = game.new_initial_state()
    first_stats = None
    while not state.is_terminal():
        bot = bots[state.current_player()]
        action = bot.step(state)
        if bot is ab_bot and first_stats is None:
            first_stats = ab_bot.last_result
        for other in bots:
            if other is not bot:
                other.inform_action(state, state.current_player(), action)
        state.apply_action(action)
    returns = state.returns()
    print(f"{game}: bounded_ab as player {seat_of_ab} vs mcts -> returns {returns}")
    if first_stats is not None:
        s = first_stats.stats
        print(
            f"  first move {first_stats.action}: value in [{first_stats.lower:+.3f}, "
            f"{first_stats.upper:+.3f}], depth {s.depth}, {s.nodes} nodes in {s.seconds:.2f} s "
            f"({s.nodes / max(s.seconds, 1e-9):,.0f} nodes/s), {s.evaluations} evaluations, "
            f"{s.cutoffs} cutoffs, {s.tt_hits} TT hits, stopped by {s.stopped_by}"
        )


def main(argv: Sequence[str]) -> None:
    del argv
    for name in _GAMES.value:
        game = pyspiel.load_game(name)
        for seat in range(2):
            _play(game, seat, _SEED.value + seat)


if __name__ == "__main__":
    commandline.run(main, program="python scripts/demo_match.py")
