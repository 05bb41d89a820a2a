"""GNU Backgammon as a guest bot and as the judge of backgammon moves (the gnubg extra)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from spiel_bounded import load_bot, registry
from spiel_bounded.arena.config import parse_config
from spiel_bounded.arena.equity_loss import judge_tournament
from spiel_bounded.arena.runner import run_tournament
from spiel_bounded.judges import backgammon
from spiel_bounded.judges.backgammon import Judge, board_of, missing_extra

needs_gnubg = pytest.mark.skipif(bool(missing_extra()), reason="the gnubg extra is not installed")


def _positions(game: pyspiel.Game, count: int, seed: int) -> list[pyspiel.State]:
    """Decision states of random games, one every few plies."""
    rng = np.random.default_rng(seed)
    found: list[pyspiel.State] = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                actions, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probabilities)))
                continue
            if rng.random() < 0.2:
                found.append(state.clone())
            state.apply_action(int(rng.choice(state.legal_actions())))
    return found


@needs_gnubg
def test_boards_are_gnubgs_and_every_checker_is_counted() -> None:
    import gnubg

    game = pyspiel.load_game("backgammon")
    start = game.new_initial_state()
    assert board_of(start, 0) == gnubg.position_from_id("4HPwATDgc/ABMA")
    for state in _positions(game, 40, seed=3):
        lines = str(state).splitlines()
        bar = next(line for line in lines if line.startswith("Bar:"))
        scores = next(line for line in lines if line.startswith("Scores"))
        off = [int(number) for number in re.findall(r"\d+", scores)]
        for on_roll in (0, 1):
            other, mover = board_of(state, on_roll)
            for player, side in ((on_roll, mover), (1 - on_roll, other)):
                assert side[24] == bar.count("xo"[player])
                assert sum(side) + off[player] == 15  # on the board, on the bar, borne off
            assert gnubg.position_from_id(gnubg.position_id((other, mover))) == (other, mover)


@needs_gnubg
def test_move_equities_are_gnubgs_own_move_scores() -> None:
    """With gammons and backgammons counted (full scoring, gnubg's own equity), the best equity
    over OpenSpiel's moves is the best score of gnubg's own move list, doubles included (gnubg
    lists a double's whole four-checker move; OpenSpiel plays it in two halves)."""
    import gnubg

    game = pyspiel.load_game("backgammon(scoring_type=full_scoring)")
    judge = Judge(game)
    checked = doubles = 0
    for state in _positions(game, 80, seed=5):
        text = str(state)
        dice = next(line for line in text.splitlines() if line.startswith("Dice:"))[5:].strip()
        extra = next(line for line in text.splitlines() if line.startswith("Extra turn:"))
        if len(dice) != 2 or extra.endswith("1"):  # a double's second half: not a whole move
            continue
        board = board_of(state, state.current_player())
        moves = gnubg.find_best_moves(
            board,
            gnubg.cubeinfo(),
            gnubg.evalcontext(0, 0, 1, 0, 0.0),
            (int(dice[0]), int(dice[1])),
        )
        if not moves:
            continue
        best = max(judge.move_equities(state).values())
        assert best == pytest.approx(moves[0]["score"], abs=1e-5)  # gnubg rounds in float32
        checked += 1
        doubles += dice[0] == dice[1]
    assert checked >= 20 and doubles >= 2


@needs_gnubg
@pytest.mark.parametrize("scoring", ["winloss_scoring", "enable_gammons", "full_scoring"])
def test_equities_are_in_the_games_own_units(scoring: str) -> None:
    """Each scoring type's equity from gnubg's probabilities: full scoring is gnubg's own
    equity; every equity lies in the game's utility range and changes sign with the side."""
    import gnubg

    game = pyspiel.load_game(f"backgammon(scoring_type={scoring})")
    judge = Judge(game)
    for state in _positions(game, 30, seed=9):
        child = state.child(state.legal_actions()[0])
        if child.is_terminal() or not child.is_chance_node():
            continue
        mover = state.current_player()
        value = judge.equity(child, mover)
        assert game.min_utility() <= value <= game.max_utility()
        assert judge.equity(child, 1 - mover) == pytest.approx(-value)
        if scoring == "full_scoring":
            probabilities = gnubg.evaluate(board_of(child, 1 - mover), gnubg.cubeinfo())
            assert value == pytest.approx(-probabilities[5], abs=1e-5)


@needs_gnubg
def test_the_bot_plays_legal_moves_and_beats_random() -> None:
    game = pyspiel.load_game("backgammon")
    bots = [load_bot("gnubg", game, 0), load_bot("random", game, 1, seed=1)]
    rng = np.random.default_rng(0)
    wins = 0
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probabilities)))
                continue
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        wins += state.returns()[0] > 0
    assert wins >= 5


@needs_gnubg
def test_the_judge_finds_no_loss_in_gnubgs_own_moves(tmp_path: Path) -> None:
    config = parse_config(
        f"""
[tournament]
games = ["backgammon"]
games_per_pairing = 2
seconds_per_move = 1.0
opening_moves = 2
seed = 3
[run]
output = "{tmp_path / "match"}"
executor = "inline"
[[bots]]
label = "judge"
bot = "gnubg"
[[bots]]
label = "random"
bot = "random"
"""
    )
    run_tournament(config)
    own = judge_tournament(tmp_path / "match", "judge")
    assert own.games == 2 and own.moves > 10
    assert own.mean == 0.0 and own.best_share == 1.0
    blind = judge_tournament(tmp_path / "match", "random")
    assert blind.mean > 50.0 and blind.low <= blind.mean <= blind.high
    with pytest.raises(ValueError, match="'nobody' played no finished backgammon move"):
        judge_tournament(tmp_path / "match", "nobody")


def test_gnubg_is_refused_by_name_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="gnubg plays backgammon only, not connect_four"):
        load_bot("gnubg", "connect_four", 0)
    real = importlib.util.find_spec

    def hidden(name: str, *args: object) -> object:
        return None if name == "gnubg" else real(name, *args)

    monkeypatch.setattr(backgammon.importlib.util, "find_spec", hidden)
    reason = registry.get_spec("gnubg").reasons_against(
        registry.game_info(pyspiel.load_game("backgammon"))
    )
    assert any("pip install 'spiel-bounded[gnubg]'" in line for line in reason)
    with pytest.raises(ValueError, match=r"the gnubg extra: pip install"):
        Judge(pyspiel.load_game("backgammon"))
