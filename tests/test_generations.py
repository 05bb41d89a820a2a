"""Generations of value networks: self-play with the best network, training, a gate match."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.schedule import seatings
from spiel_bounded.arena.store import GameStore
from spiel_bounded.evaluators.value_net.config import ModelConfig
from spiel_bounded.games import load_game
from spiel_bounded.training import pipeline
from spiel_bounded.training.card import publish
from spiel_bounded.training.config import (
    CurveSettings,
    DataConfig,
    GenerationSettings,
    TrainConfig,
    references_for,
)
from spiel_bounded.training.curve import match_config, run_curve
from spiel_bounded.training.game_files import BUNDLE_FILE
from spiel_bounded.training.generations import (
    GenerationRecord,
    Stage,
    elo_difference,
    evaluator_of,
    generation_directory,
    match_score,
    plot_generations,
    run_generations,
    scores_of,
    selfplay_directory,
    strengths,
    with_playouts,
)
from spiel_bounded.training.pipeline import RunConfig, read_run_config
from tests.markers import needs_jax


def tiny(directory: Path, **generations: object) -> RunConfig:
    settings = {"count": 2, "window": 2, "gate_games": 2, "gate_params": {"depth": 1}}
    return RunConfig(
        data=DataConfig(
            game="tic_tac_toe",
            games=6,
            bot="bounded_ab",
            bot_params={"depth": 2},
            opening_moves=2,
            epsilon=0.1,
            seed=5,
        ),
        model=ModelConfig(kind="mlp", width=8, depth=1),
        train=TrainConfig(batch_size=16, max_epochs=2, patience=1, seed=5),
        directory=directory,
        data_directory=directory / "unused",
        generations=GenerationSettings(**{**settings, **generations}),
    )


@needs_jax
def test_each_generation_learns_from_the_best_so_far_and_is_gated(tmp_path: Path) -> None:
    config = tiny(tmp_path, gate_score=0.0)  # every new network is accepted
    records = run_generations(config, executor="inline")
    assert [record.generation for record in records] == [1, 2]
    assert records[0].teacher == "heuristic"
    assert records[1].teacher == evaluator_of(1, tmp_path, "heuristic")
    assert [record.best for record in records] == [1, 2]
    for record in records:
        home = generation_directory(tmp_path, record.generation)
        assert (home / "model.npz").exists() and (home / "training.json").exists()
        assert record.match_games == 2 and record.low <= record.score <= record.high
        assert match_score(home / "match")[0] == record.score
    assert records[1].positions > records[0].positions  # a window of two generations
    trained = [
        json.loads((generation_directory(tmp_path, g) / "training.json").read_text())
        for g in (1, 2)
    ]
    assert [entry["warm_start"] for entry in trained] == [False, True]  # from gen 1's network


@needs_jax
def test_without_a_gate_every_network_teaches_the_next(tmp_path: Path) -> None:
    """`gate_games = 0`: Descent's continuous loop, no match; each network is the next teacher,
    and the records count the games and the time."""
    records = run_generations(tiny(tmp_path, gate_games=0, count=3), executor="inline")
    assert [record.best for record in records] == [1, 2, 3]
    assert [record.teacher for record in records[1:]] == [
        evaluator_of(g, tmp_path, "heuristic") for g in (1, 2)
    ]
    assert all(record.accepted and not record.gated for record in records)
    assert all(math.isnan(record.score) and record.match_games == 0 for record in records)
    assert not any((generation_directory(tmp_path, g) / "match").exists() for g in (1, 2, 3))
    assert [record.total_games for record in records] == [6, 12, 18]
    # Only the games the next window reads stay bundled (window 2: generation 3's).
    bundled = [(selfplay_directory(tmp_path, g) / BUNDLE_FILE).exists() for g in (1, 2, 3)]
    assert bundled == [False, False, True]
    # A bundle left by a run stopped before it dropped it goes with the next generation.
    (selfplay_directory(tmp_path, 1) / BUNDLE_FILE).write_bytes(b"left over")
    run_generations(tiny(tmp_path, gate_games=0, count=4), executor="inline")
    assert not (selfplay_directory(tmp_path, 1) / BUNDLE_FILE).exists()
    assert all(record.seconds > 0 for record in records)
    assert strengths(records) == []
    assert (tmp_path / "generations.png").exists()


@needs_jax
def test_networks_teach_mixed_with_seeded_playouts_when_asked(tmp_path: Path) -> None:
    """`playout_weight`: self-play values leaves by the teacher network mixed with a seeded
    playout (a start that is no network teaches as it is); the records say so."""
    records = run_generations(
        tiny(tmp_path, gate_games=0, count=2, playout_weight=0.25), executor="inline"
    )
    assert records[0].teacher == "heuristic"
    network = evaluator_of(1, tmp_path, "heuristic")
    assert records[1].teacher == f"mix:0.25:{network}+seeded_rollout"
    trained = json.loads((generation_directory(tmp_path, 2) / "training.json").read_text())
    assert trained["warm_start"]  # from the teacher's network, as without the mix
    card = publish(tmp_path, tmp_path / "card", "card").read_text()
    assert "mixed with one seeded random playout at weight 0.25" in card
    assert with_playouts("rollout", GenerationSettings(playout_weight=0.5)) == "rollout"
    assert with_playouts(network, GenerationSettings()) == network


@needs_jax
def test_no_generation_starts_once_the_hours_are_spent(tmp_path: Path) -> None:
    stages: list[Stage] = []
    config = tiny(tmp_path, gate_games=0, count=3, hours=1e-9)
    records = run_generations(config, executor="inline", on_stage=stages.append)
    assert [record.generation for record in records] == [1]
    assert f"{stages[-1].generation} {stages[-1].stage}" == "2 not started: the hours are spent"
    # The progress line's events: each game and epoch counted, the run's time only growing.
    first = [stage for stage in stages if stage.generation == 1]
    names = [stage.stage for stage in first]
    assert [name for i, name in enumerate(names) if names[i - 1 : i] != [name]] == [
        "self-play",
        "assemble",
        "train",
        "done",
    ]
    epochs = [stage.done for stage in first if stage.stage == "train"]
    assert epochs[:2] == [0, 0] and epochs[1:] == list(range(len(epochs) - 1))
    played = [stage.done for stage in first if stage.stage == "self-play"]
    assert played == [0, *range(config.data.games + 1)]
    assert first[-1].record == records[0]
    spent = [stage.spent for stage in first]
    assert spent == sorted(spent)
    assert stages[-1].spent == pytest.approx(records[0].seconds, abs=0.01)


@needs_jax
def test_a_network_below_the_gate_score_is_not_kept(tmp_path: Path) -> None:
    records = run_generations(tiny(tmp_path, count=1, gate_score=1.0), executor="inline")
    (record,) = records
    assert record.accepted == (record.score >= 1.0)
    assert record.best == (1 if record.accepted else 0)


@needs_jax
def test_generations_resume_and_grow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = run_generations(tiny(tmp_path, count=1), executor="inline")

    def no_training(*args: object, **kwargs: object) -> None:
        raise AssertionError("a finished generation was trained again")

    monkeypatch.setattr(pipeline, "fit_and_save", no_training)
    assert run_generations(tiny(tmp_path, count=1), executor="inline") == first
    # Killed after the checkpoint was written, before training.json and the generation's record:
    # the checkpoint's own record counts, and the finished match is read back.
    (generation_directory(tmp_path, 1) / "training.json").unlink()
    record_file = tmp_path / "generations.json"
    stored = json.loads(record_file.read_text())
    record_file.write_text(json.dumps({**stored, "records": []}))
    assert run_generations(tiny(tmp_path, count=1), executor="inline") == first
    monkeypatch.undo()
    grown = run_generations(tiny(tmp_path, count=2), executor="inline")
    assert grown[:1] == first and len(grown) == 2
    changed = tiny(tmp_path, count=2)
    changed = replace(changed, data=replace(changed.data, games=7))
    # A directory written before a setting existed resumes with its default.
    record_file = tmp_path / "generations.json"
    stored = json.loads(record_file.read_text())
    del stored["config"]["data"]["tree_labels"], stored["config"]["data"]["label_depth"]
    record_file.write_text(json.dumps(stored))
    assert run_generations(tiny(tmp_path, count=2), executor="inline") == grown
    with pytest.raises(ValueError, match=r"another config \(it differs in data.games;"):
        run_generations(changed, executor="inline")


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("gate_games = 3", r"\[generations\] gate_games must be even"),
        ('gate_params = { evaluator = "heuristic" }', r"gate_params .* without evaluator"),
        ("gate_score = 1.5", r"\[generations\] gate_score: must be"),
        ("playout_weight = 1.0", r"\[generations\] playout_weight must be below 1"),
        ("playout_weight = -0.5", r"\[generations\] playout_weight: must be"),
        ("rounds = 2", r"\[generations\] rounds: unknown key; accepted: count, start, "),
    ],
)
def test_a_bad_generations_section_is_refused(tmp_path: Path, section: str, message: str) -> None:
    path = tmp_path / "run.toml"
    path.write_text(
        '[data]\ngame = "tic_tac_toe"\n[output]\ndirectory = "a"\ndata_directory = "b"\n'
        f"[generations]\n{section}\n"
    )
    with pytest.raises(ValueError, match=message):
        read_run_config(path)


def _record(generation: int, score: float, accepted: bool, best: int) -> GenerationRecord:
    return GenerationRecord(
        generation=generation,
        teacher="",
        games=10,
        positions=100,
        validation_loss=0.1,
        score=score,
        low=score - 0.1,
        high=score + 0.1,
        match_games=100,
        accepted=accepted,
        best=best,
    )


def test_strength_chains_through_the_accepted_generations(tmp_path: Path) -> None:
    assert elo_difference(0.5) == 0.0
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_difference(1.0) == pytest.approx(-elo_difference(0.0))
    records = [
        _record(1, 0.75, True, 1),  # +191 over generation 0
        _record(2, 0.40, False, 1),  # -70 against generation 1: 120 over generation 0
        _record(3, 0.60, True, 3),  # +70 against generation 1
    ]
    elos = [round(strength.elo) for strength in strengths(records)]
    assert elos == [191, 120, 261]
    first = strengths(records)[0]
    assert first.low < first.elo < first.high
    plot_generations(records, tmp_path / "g.png", "test")
    assert (tmp_path / "g.png").stat().st_size > 1000


@needs_jax
def test_the_curve_scores_every_nth_network_against_its_references(tmp_path: Path) -> None:
    """`training.curve`: the chosen networks (every 2nd and the newest) each play every
    reference, "previous" from the second on; scores with intervals in curve.json, a plot,
    and a second call reads the matches back instead of playing them again."""
    config = tiny(tmp_path, gate_games=0, count=3)
    run_generations(config, executor="inline")
    settings = CurveSettings(
        every=2,
        games=2,
        seconds_per_move=0.01,
        params={"depth": 1},
        references=("heuristic", "mcts", "previous"),
    )
    points = run_curve(config, settings, executor="inline", command="score the curve")
    assert [point.generation for point in points] == [2, 3]
    assert [point.games for point in points] == [12, 18]
    assert set(points[0].scores) == {"heuristic", "mcts"}
    assert set(points[1].scores) == {"heuristic", "mcts", "previous"}
    for point in points:
        for score in point.scores.values():
            assert score.games == 2 and score.low <= score.score <= score.high
    stored = json.loads((tmp_path / "curve.json").read_text())
    assert [entry["generation"] for entry in stored["points"]] == [2, 3]
    assert stored["command"] == "score the curve"  # the card names it beside the generations'
    assert "`score the curve`" in publish(tmp_path, tmp_path / "card", "card").read_text()
    assert (tmp_path / "curve.png").exists()
    played = {path: path.read_text() for path in (tmp_path / "curve").glob("*/games.csv")}
    assert len(played) == 2
    assert run_curve(config, settings, executor="inline") == points
    assert {path: path.read_text() for path in played} == played  # read back, not replayed
    # One more generation: generation 3, scored as the newest, keeps its point (read back) and
    # is generation 4's previous network.
    longer = replace(config, generations=replace(config.generations, count=4))
    run_generations(longer, executor="inline")
    resumed = run_curve(longer, settings, executor="inline")
    assert [point.generation for point in resumed] == [2, 3, 4]
    assert resumed[:2] == points
    assert set(resumed[2].scores) == {"heuristic", "mcts", "previous"}
    assert "gen_03/model.npz" in (tmp_path / "curve" / "gen_04" / "run.json").read_text()
    assert {path: path.read_text() for path in played} == played
    stored = json.loads((tmp_path / "curve.json").read_text())
    assert [entry["generation"] for entry in stored["points"]] == [2, 3, 4]


def test_curve_settings_and_references_are_checked() -> None:
    with pytest.raises(ValueError, match=r"\[curve\] unknown reference\(s\) 'gnubg'"):
        CurveSettings(references=("heuristic", "gnubg"))
    with pytest.raises(ValueError, match=r"\[curve\] games must be even"):
        CurveSettings(games=3)
    with pytest.raises(ValueError, match=r"without evaluator"):
        CurveSettings(params={"evaluator": "zero"})
    assert references_for(CurveSettings(), "connect_four") == ("heuristic", "mcts", "previous")
    assert references_for(CurveSettings(), "othello") == ("rollout", "mcts", "previous")
    with pytest.raises(ValueError, match="othello has no hand-written heuristic; use rollout"):
        references_for(CurveSettings(references=("heuristic",)), "othello")


def test_publishing_a_run_without_generations_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds no generations to publish"):
        publish(tmp_path / "run", tmp_path / "card", "card")
    assert not (tmp_path / "card").exists()


def test_scores_count_the_seats_a_network_finished_ahead_of(tmp_path: Path) -> None:
    """Two seats: win, draw, loss. Against two copies of a reference: a point per copy beaten,
    half per tie, over the two; a game with two different opponents, or one that raised, is not
    a score against either."""

    def game(seats: tuple[str, ...], returns: tuple[float, ...], error: str = "") -> GameRecord:
        n = len(seats)
        return GameRecord(
            game_id=f"g|{'-'.join(seats)}|{len(returns)}",
            game="g",
            round=0,
            seats=seats,
            bots=seats,
            params_hashes=("",) * n,
            seed=0,
            returns=() if error else returns,
            moves=1,
            seat_moves=(1,) * n,
            seconds_per_move=(0.0,) * n,
            max_seconds=(0.0,) * n,
            nodes_per_move=(None,) * n,
            actions=(0,),
            duration=0.0,
            error=error,
        )

    with GameStore(tmp_path).appending() as store:
        for record in (
            game(("network", "h"), (1.0, -1.0)),
            game(("h", "network"), (0.0, 0.0)),
            game(("network", "h", "h"), (1.0, 0.0, 1.0)),  # ahead of one copy, tied with one
            game(("h", "h", "network"), (0.0, 1.0, -1.0)),
            game(("network", "h", "m"), (1.0, 0.0, 0.0)),
            game(("network", "h"), (1.0, -1.0), error="boom"),
        ):
            store.append(record.to_line())
    scores = scores_of(tmp_path, "network")
    assert set(scores) == {"h"} and scores["h"].games == 4
    assert scores["h"].score == pytest.approx((1.0 + 0.5 + 0.75 + 0.0) / 4)


@needs_jax
@pytest.mark.parametrize("players", [3, 4])
def test_an_n_player_curve_match_seats_the_network_against_copies_of_a_reference(
    tmp_path: Path, players: int
) -> None:
    """The network takes every seat once per round against n - 1 copies of each reference:
    `games` rounded up to a multiple of n, every seating a game of its own."""
    from flax import nnx

    from spiel_bounded.evaluators.value_net.checkpoint import Checkpoint, save_checkpoint
    from spiel_bounded.evaluators.value_net.layout import layout_for
    from spiel_bounded.evaluators.value_net.model import ValueNetwork, export_params

    game_string = f"chinese_checkers(players={players})"
    game = load_game(game_string)
    model = ModelConfig(kind="mlp", width=4, depth=1)
    network = ValueNetwork(layout_for(game, model), rngs=nnx.Rngs(0))
    save_checkpoint(
        generation_directory(tmp_path, 1) / "model.npz",
        Checkpoint(
            game=game_string,
            observation_shape=tuple(game.observation_tensor_shape()),
            model=model,
            params=export_params(network),
        ),
    )
    config = replace(
        tiny(tmp_path, gate_games=0),
        data=DataConfig(game=game_string, bot="maxn", bot_params={"depth": 1}),
        model=model,
    )
    settings = CurveSettings(games=2, references=("heuristic", "mcts"))
    tournament = match_config(config, settings, 1, None, tmp_path / "out").tournament
    assert tournament.games_per_pairing == players
    assert tournament.tables == tuple(
        ("network", *[name] * (players - 1)) for name in ("heuristic", "mcts")
    )
    for table in tournament.tables:
        assert len(set(seatings(players, table, tournament.seating))) == players


@needs_jax
def test_publish_reads_older_records_and_refuses_a_run_without_a_network(tmp_path: Path) -> None:
    records = run_generations(tiny(tmp_path / "run", gate_games=0, count=1), executor="inline")
    record_file = tmp_path / "run" / "generations.json"
    stored = json.loads(record_file.read_text())
    for entry in stored["records"]:  # written before records carried their time and games
        del entry["seconds"], entry["total_games"]
    record_file.write_text(json.dumps(stored))
    card = publish(tmp_path / "run", tmp_path / "card", "card").read_text()
    assert f"generation {records[0].best} of a self-play loop" in card
    assert "No learning curve was measured" in card
    stored["records"][0]["best"] = 0  # a gated run whose networks all failed their gate
    record_file.write_text(json.dumps(stored))
    with pytest.raises(ValueError, match="the best is still generation 0, heuristic"):
        publish(tmp_path / "run", tmp_path / "other", "other")
    assert not (tmp_path / "other").exists()


def test_a_checkpoint_start_may_be_spelled_as_a_path_or_as_an_evaluator(tmp_path: Path) -> None:
    assert evaluator_of(0, tmp_path, "models/x.npz") == "net:models/x.npz"
    assert evaluator_of(0, tmp_path, "net:models/x.npz") == "net:models/x.npz"
    assert evaluator_of(0, tmp_path, "rollout") == "rollout"
