"""`train_value_net.py --game=NAME`: a training config derived from the game alone."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spiel_bounded.evaluators.value_net import jax_available
from spiel_bounded.evaluators.value_net.checkpoint import load_checkpoint
from spiel_bounded.games import load_game
from spiel_bounded.training.defaults import (
    LABELS_PER_GENERATION,
    MAX_GAMES,
    MIN_GAMES,
    RandomPlay,
    TreeLabelling,
    default_config,
    games_per_generation,
    merge,
    random_play,
    search_depth,
    tree_labelling,
)
from spiel_bounded.training.generate import check_data_config
from spiel_bounded.training.pipeline import read_toml, run_config_from

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("game", "bot", "start", "mirror", "tree", "inputs"),
    [
        ("connect_four", "bounded_ab", "heuristic", True, True, "threats"),
        (
            "connect_four(egocentric_obs_tensor=true)",
            "bounded_ab",
            "heuristic",
            True,
            True,
            "observation",
        ),
        ("connect_four(rows=8,columns=8)", "bounded_ab", "heuristic", True, True, "threats"),
        ("connect_four(rows=8,columns=9)", "bounded_ab", "heuristic", True, True, "observation"),
        ("othello", "bounded_ab", "rollout", True, True, "observation"),  # a half turn
        ("hex(board_size=7)", "bounded_ab", "rollout", True, True, "connections"),
        ("amazons(board_size=6)", "bounded_ab", "heuristic", True, True, "territory"),
        ("backgammon", "bounded_star2", "heuristic", False, True, "observation"),
        ("chinese_checkers(players=3)", "maxn", "heuristic", False, False, "observation"),
    ],
)
def test_the_game_decides_the_config_and_it_plays(
    game: str, bot: str, start: str, mirror: bool, tree: bool, inputs: str
) -> None:
    raw = default_config(game, "runs/x")
    config = run_config_from(raw, f"--game={game}")
    assert config.data.bot == bot and config.data.tree_labels == tree
    assert config.generations is not None and config.generations.start == start
    assert config.generations.gate_games == 0  # the continuous loop
    assert config.model.kind == "mlp" and config.train.mirror == mirror
    assert config.model.inputs == inputs
    assert config.train.labelling == ("interval" if tree else "mix")
    # An n-player game's draw is a move cap: its heuristic says who got further.
    assert config.data.drawn_outcome == ("returns" if tree else "heuristic")
    assert config.curve is not None
    check_data_config(config.data)  # the bot loads with these parameters, labels and all


def test_the_depth_and_the_games_follow_random_play() -> None:
    connect_four = random_play(load_game("connect_four"))
    breakthrough = random_play(load_game("breakthrough"))
    assert 6 < connect_four.branching < 8 < 20 < breakthrough.branching < 30
    assert search_depth(connect_four, "bounded_ab", rollouts=False) == 6
    assert search_depth(breakthrough, "bounded_ab", rollouts=False) == 4
    # Rollout leaves cost a playout each: a tenth of the budget, a shallower search.
    assert search_depth(connect_four, "bounded_ab", rollouts=True) < 6
    assert search_depth(connect_four, "maxn", rollouts=False) < 6  # no alpha-beta pruning
    # About the same number of played positions a generation, longer games fewer of them.
    assert 10 < connect_four.plies < breakthrough.plies
    assert games_per_generation(connect_four) > games_per_generation(breakthrough)
    for play in (connect_four, breakthrough, RandomPlay(1.0, 1e6), RandomPlay(1.0, 1.0)):
        assert MIN_GAMES <= games_per_generation(play) <= MAX_GAMES
    # Tree labels: the top two plies of connect_four's depth-6 search, only the root's children
    # in breakthrough (wide), and fewer games where each move brings more labels.
    assert tree_labelling(connect_four, 6) == TreeLabelling(4, 2, 3 * connect_four.branching)
    assert tree_labelling(breakthrough, 4) == TreeLabelling(3, 1, breakthrough.branching)
    for play, depth in ((connect_four, 6), (breakthrough, 4)):
        labelling = tree_labelling(play, depth)
        games = games_per_generation(play, labelling.per_move)
        assert games < games_per_generation(play)
        assert games * play.plies * labelling.per_move <= LABELS_PER_GENERATION * 1.01
    raw = default_config("breakthrough", "runs/x")["data"]
    assert (raw["label_depth"], raw["games"]) == (
        3,
        games_per_generation(breakthrough, breakthrough.branching),
    )


def test_an_override_replaces_keys_and_a_game_without_a_bot_is_refused() -> None:
    raw = merge(default_config("connect_four", "runs/x"), {"data": {"games": 7}, "curve": {}})
    assert raw["data"]["games"] == 7 and raw["data"]["bot"] == "bounded_ab"
    with pytest.raises(ValueError, match=r"must be a \[section\] table"):
        merge(raw, {"data": 3})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match=r"no self-play bot for .*accepted: two-player"):
        default_config("kuhn_poker", "runs/x")


@pytest.mark.skipif(not jax_available(), reason="training needs the jax extra")
def test_one_command_trains_a_loop_and_its_curve(tmp_path: Path) -> None:
    override = tmp_path / "small.toml"
    override.write_text(
        f"""
[data]
games = 4
bot_params = {{ depth = 2 }}
[train]
max_epochs = 1
[generations]
count = 2
[curve]
every = 1
games = 2
seconds_per_move = 0.01
params = {{ depth = 1 }}
references = ["heuristic", "previous"]
[output]
directory = "{tmp_path / "run"}"
data_directory = "{tmp_path / "run" / "unused"}"
"""
    )
    command = [
        sys.executable,
        "scripts/train_value_net.py",
        "--game=tic_tac_toe",
        f"--config={override}",
        "--hours=1",
        "--workers=1",
        "--executor=inline",
        f"--publish={tmp_path / 'published'}",
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    records = json.loads((tmp_path / "run" / "generations.json").read_text())["records"]
    assert [record["generation"] for record in records] == [1, 2]
    curve = json.loads((tmp_path / "run" / "curve.json").read_text())["points"]
    assert [point["generation"] for point in curve] == [1, 2]
    suite = (tmp_path / "run" / "curve" / "openings.txt").read_text()
    assert suite.startswith("# 1 openings of 6 random plies for tic_tac_toe, none of them a ")
    assert "networks scored" in done.stdout
    # The published card is written from those records: the newest network, its curve.
    card = (tmp_path / "published" / "README.md").read_text()
    assert "generation 2 of a self-play loop" in card and "2 generations, 8 self-play" in card
    assert "| 2 | 8 | " in card and "vs previous %" in card
    assert "from 1 openings of 6 random plies for tic_tac_toe, none of them a position" in card
    published = load_checkpoint(tmp_path / "published" / "model.npz").params
    newest = load_checkpoint(tmp_path / "run" / "gen_02").params
    assert published.keys() == newest.keys()
    assert all(np.array_equal(published[name], newest[name]) for name in newest)
    # Not on a terminal, the loop's progress line is written once per finished generation.
    finished = [line for line in done.stderr.splitlines() if " done: " in line]
    assert [line.split(" | ")[-1].split(",")[0] for line in finished] == [
        "generation 1 done: 4 games",
        "generation 2 done: 8 games",
    ]


def test_committed_loop_overrides_merge_into_valid_configs() -> None:
    """Each `configs/loop_*.toml` a `train_value_net.py --game` command in its comments uses,
    over that game's derived config, reads as a run config (the check a run makes before it
    starts). Other mentions of `--game=` (round-robin configs named `loop_checkpoints_*`
    quote it in prose) are not commands."""
    checked = 0
    for path in sorted((ROOT / "configs").glob("loop_*.toml")):
        commands = [line for line in path.read_text().splitlines() if "train_value_net.py" in line]
        quoted_or_not = re.findall(r'--game=(?:"([^"]+)"|(\S+))', "\n".join(commands))
        for game in {quoted or plain for quoted, plain in quoted_or_not}:
            raw = merge(default_config(game, "runs/x"), read_toml(path))
            check_data_config(run_config_from(raw, f"--game={game} --config={path}").data)
            checked += 1
    assert checked >= 5
