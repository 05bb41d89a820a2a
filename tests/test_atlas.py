"""Tests for the catalogue atlas (`spiel_bounded.experiments.atlas`, `scripts/atlas.py`): each
measurement is right where the answer is known (terminal values, exact game values, OpenSpiel's
values, undo), the quick config runs every kind of task with no bound violated and no value
differing, a run resumes repeating nothing and re-runs only failed tasks, a changed or malformed
config is refused with a message naming the key, and the script writes the report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyspiel
import pytest

from spiel_bounded.experiments.atlas import measures, plots
from spiel_bounded.experiments.atlas.config import (
    AtlasConfig,
    AtlasConfigError,
    load_atlas_config,
    parse_atlas_config,
)
from spiel_bounded.experiments.atlas.report import (
    beff_frame,
    build_atlas_report,
    listed_pairs,
    planned,
    pruning_frame,
    q1_frame,
)
from spiel_bounded.experiments.atlas.runner import RECORDS, read_records, run_atlas
from spiel_bounded.experiments.atlas.tasks import (
    KINDS,
    AtlasRecord,
    AtlasTask,
    first_stage,
    positions_of,
    run_atlas_task,
)
from spiel_bounded.experiments.positions import Position
from spiel_bounded.experiments.report import knuth_moore_nodes
from spiel_bounded.oracles import solve
from spiel_bounded.runs import ConfigChangedError, InlineExecutor, Job, make_executor
from spiel_bounded.runs.settings import with_run

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "atlas_quick.toml"
FULL = ROOT / "configs" / "atlas.toml"


def quick(tmp_path: Path) -> AtlasConfig:
    return with_run(load_atlas_config(QUICK), output=str(tmp_path / "atlas" / "run"))


# ---------------------------------------------------------------------------- measurements ---


def test_facts_of_tic_tac_toe() -> None:
    facts = measures.game_facts("tic_tac_toe", playouts=40, max_plies=100, seed=1)
    assert facts.players == 2 and not facts.chance and facts.cut == 0
    assert facts.branching_max == 9 and 1 < facts.branching_mean < 9
    assert 5 <= facts.length_min <= facts.length_mean <= facts.length_max <= 9
    assert set(facts.terminal_values) <= {-1.0, 0.0, 1.0} and facts.terminal_value_count >= 2
    assert facts.child_per_second > 0 and facts.apply_per_second > 0
    assert facts.undo == "exact"


def test_facts_say_when_undo_is_missing_and_count_cut_playouts() -> None:
    facts = measures.game_facts("pig", playouts=3, max_plies=5, seed=2)
    assert facts.undo.startswith("missing")
    assert facts.cut == 3 and facts.length_max == 5 and facts.terminal_value_count == 0


class _BrokenUndo:
    """A state whose undo leaves the wrong player to move."""

    def __init__(self, state: pyspiel.State) -> None:
        self._state = state

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)

    def clone(self) -> _BrokenUndo:
        return _BrokenUndo(self._state.clone())

    def undo_action(self, player: int, action: int) -> None:
        self._state.undo_action(player, action)
        self._state.apply_action(self._state.legal_actions()[0])

    def __str__(self) -> str:
        return str(self._state)


def test_an_undo_that_does_not_restore_the_state_is_reported_wrong() -> None:
    import numpy as np

    state = pyspiel.load_game("tic_tac_toe").new_initial_state()
    verdict = measures.undo_check([_BrokenUndo(state)], np.random.default_rng(0))  # type: ignore[list-item]
    assert verdict.startswith("wrong")


def test_positions_are_seeded_decision_nodes_within_the_ply_range() -> None:
    first = measures.random_position_list("backgammon", 5, (2, 4), seed=3)
    assert first == measures.random_position_list("backgammon", 5, (2, 4), seed=3)
    for position in first:
        state = position.state()
        assert not state.is_terminal() and not state.is_chance_node()


def test_the_calibrated_depth_is_the_deepest_within_the_budget() -> None:
    positions = measures.random_position_list("connect_four", 2, (4, 6), seed=4)
    calibration = measures.calibrate_depth(
        positions, algorithm="bounded_ab", evaluator="heuristic", budget=2000, max_depth=12
    )
    depths = dict(calibration.by_depth)
    assert depths[calibration.depth] <= 2000
    assert calibration.depth == 12 or depths[calibration.depth + 1] > 2000


@pytest.mark.parametrize(
    ("game", "evaluator"),
    [
        ("connect_four", "heuristic"),
        ("clobber(rows=4,columns=4)", "seeded_rollout"),
        ("pig", "heuristic"),
    ],
)
def test_our_search_finds_openspiels_value_at_every_depth(game: str, evaluator: str) -> None:
    (position,) = measures.random_position_list(game, 1, (4, 6), seed=5)
    algorithm = "bounded_star2" if "pig" in game else "bounded_ab"
    comparison = measures.versus_openspiel(
        position, algorithm=algorithm, evaluator=evaluator, seconds=0.05, max_depth=5
    )
    assert comparison.mismatches == 0 and comparison.depths >= 2
    assert comparison.ours_value == pytest.approx(comparison.theirs_value, abs=1e-9)
    assert comparison.theirs_nodes > 0 and comparison.ours_nodes > 0


@pytest.mark.parametrize("algorithm", measures.SOLVERS)
def test_the_solvers_prove_tic_tac_toe_a_draw(algorithm: str) -> None:
    start = Position("tic_tac_toe", ())
    outcome = measures.solve_position(start, algorithm=algorithm, nodes=200_000)
    assert outcome.solved
    if algorithm == "pns":  # proves "no win for the mover"
        assert outcome.upper <= 0
    else:
        assert outcome.lower == outcome.upper == 0.0


@pytest.mark.parametrize("algorithm", measures.TRACERS)
def test_every_traced_interval_holds_the_exact_value(algorithm: str) -> None:
    for position in measures.random_position_list("tic_tac_toe", 3, (1, 3), seed=6):
        exact = solve(position.state())[position.state().current_player()]
        trace = measures.trace_interval(
            position, algorithm=algorithm, budgets=[10, 50, 200, 5000], seed=0
        )
        assert len(trace.lower) == len(trace.budgets) >= 1
        for lower, upper in zip(trace.lower, trace.upper, strict=True):
            assert lower <= exact <= upper
        assert trace.lower[-1] == trace.upper[-1] == exact  # 5,000 nodes solve it


def test_every_max_n_pruning_keeps_the_root_value() -> None:
    (position,) = measures.random_position_list("chinese_checkers(players=3)", 1, (4, 6), seed=7)
    points = [
        measures.pruning_nodes(position, pruning=mode, depth=2, evaluator="heuristic", nodes=10**6)
        for mode in ("none", "shallow", "last_branch", "speculative")
    ]
    assert all(point.completed for point in points)
    assert all(point.values == pytest.approx(points[0].values) for point in points)
    assert points[-1].nodes <= points[0].nodes


def test_seeded_rollout_lets_searches_agree_on_games_without_a_heuristic() -> None:
    (position,) = measures.random_position_list("othello", 1, (4, 6), seed=8)
    comparison = measures.versus_openspiel(
        position, algorithm="bounded_ab", evaluator="seeded_rollout", seconds=0.05, max_depth=3
    )
    assert comparison.mismatches == 0 and comparison.depths >= 2


def test_a_task_that_raises_becomes_an_error_record() -> None:
    task = AtlasTask(kind="nonsense", label="x", game="tic_tac_toe")
    record = run_atlas_task(task)
    assert not record.ok and "unknown task kind" in record.error
    assert AtlasRecord.from_line(record.to_line()) == record


# ----------------------------------------------------------------------------------- runs ---


class _Recording(InlineExecutor):
    def __init__(self) -> None:
        self.given: list[str] = []

    def run(self, job: Job[AtlasTask, Any], tasks: Sequence[AtlasTask], done: Any) -> None:
        self.given += [task.task_id for task in tasks]
        super().run(job, tasks, done)


def test_the_quick_atlas_runs_every_kind_and_every_guarantee_holds(tmp_path: Path) -> None:
    config = quick(tmp_path)
    result = run_atlas(config, executor=InlineExecutor(), tournaments=False)
    records = read_records(config.run.output)
    assert result.errors == 0 and all(record.ok for record in records)
    assert set(Counter(record.kind for record in records)) == set(KINDS)
    assert result.done == result.scheduled == len(records)
    frame = q1_frame(records)
    assert not frame["violation"].any()
    proved = frame[frame["proved"]]
    assert len(proved) and proved["error"].notna().all()  # every search had its reference
    assert (proved["error"] <= proved["fraction"] + 1e-9).all()
    assert all(r.data["mismatches"] == 0 for r in records if r.kind == "openspiel")
    # Resuming runs nothing; a task whose last record is an error runs again, alone.
    recording = _Recording()
    again = run_atlas(config, executor=recording, tournaments=False)
    assert recording.given == [] and again.resumed == len(records)
    victim = records[-1]
    path = Path(config.run.output) / RECORDS
    lines = path.read_text().splitlines(keepends=True)
    failed = json.loads(lines[-1])
    failed.update(error="boom", data={})
    path.write_text("".join(lines[:-1]) + json.dumps(failed) + "\n")
    recording = _Recording()
    run_atlas(config, executor=recording, tournaments=False)
    assert recording.given == [victim.task_id]
    report = build_atlas_report(config, "cmd").markdown
    for section in ("## Facts", "## Q1", "## Against OpenSpiel", "## Solving", "## Max^n"):
        assert section in report
    assert "None." in report.split("## Tasks whose last run raised")[1]


def test_a_changed_config_is_refused_and_run_settings_may_change(tmp_path: Path) -> None:
    config = quick(tmp_path)
    run_atlas(config, executor=_StopAfter(3), tournaments=False)
    raw = tomllib.loads(QUICK.read_text())
    raw["atlas"]["q1_nodes"] = 500
    changed = parse_atlas_config(raw, overrides={"output": str(config.run.output)})
    with pytest.raises(ConfigChangedError, match="atlas"):
        run_atlas(changed, executor=InlineExecutor(), tournaments=False)
    resumed = run_atlas(with_run(config, workers=2), executor=_StopAfter(1), tournaments=False)
    assert resumed.resumed >= 3


def test_rows_may_be_added_or_changed_and_only_their_tasks_run(tmp_path: Path) -> None:
    raw = _raw()
    raw["games"] = raw["games"][:1]
    output = str(tmp_path / "atlas" / "run")
    one_row = parse_atlas_config(raw, overrides={"output": output})
    run_atlas(one_row, executor=InlineExecutor(), tournaments=False)
    raw["games"].append({"game": "nim", "evaluator": "seeded_rollout"})
    added = _Recording()
    run_atlas(
        parse_atlas_config(raw, overrides={"output": output}), executor=added, tournaments=False
    )
    assert added.given and all("/nim/" in task_id for task_id in added.given)
    raw["games"][1]["rollouts"] = 3  # a changed row: its tasks are new, the old ones ignored
    changed = parse_atlas_config(raw, overrides={"output": output})
    recording = _Recording()
    run_atlas(changed, executor=recording, tournaments=False)
    assert recording.given and all("/nim/" in task_id for task_id in recording.given)
    searches = [t for t in added.given if not t.startswith(("facts/", "calibrate/"))]
    assert searches and not set(recording.given) & set(searches)
    report_records = planned(changed, read_records(output))
    nim = [r for r in report_records if r.label == "nim" and r.kind == "q1"]
    assert nim and all(r.params.get("rollouts") == 3 for r in nim)


def test_a_row_whose_positions_change_is_searched_again_at_the_new_positions(
    tmp_path: Path,
) -> None:
    """Same game, same parameters, other positions: no record of an old position is reported
    for a new one."""
    raw = _raw()
    raw["games"] = raw["games"][:1]
    output = str(tmp_path / "atlas" / "run")
    run_atlas(
        parse_atlas_config(raw, overrides={"output": output}),
        executor=InlineExecutor(),
        tournaments=False,
    )
    first = {r.task_id: r.actions for r in read_records(output) if r.kind == "q1"}
    raw["games"][0]["plies"] = [3, 5]
    raw["games"][0]["solve"][0]["plies"] = [1, 3]
    moved = parse_atlas_config(raw, overrides={"output": output})
    recording = _Recording()
    run_atlas(moved, executor=recording, tournaments=False)
    assert {"q1", "openspiel", "solve", "trace"} <= {t.split("/")[0] for t in recording.given}
    reported = [r for r in planned(moved, read_records(output)) if r.kind != "facts"]
    assert reported and all(r.task_id in recording.given for r in reported)
    assert {r.actions for r in reported if r.kind == "q1"}.isdisjoint(first.values())


class _StopAfter(InlineExecutor):
    """Runs only the first `count` tasks it is given (as a run stopped early would)."""

    def __init__(self, count: int) -> None:
        self.count = count

    def run(self, job: Job[AtlasTask, Any], tasks: Sequence[AtlasTask], done: Any) -> None:
        super().run(job, list(tasks)[: self.count], done)


def test_the_atlas_runs_on_a_local_dask_cluster(tmp_path: Path) -> None:
    raw = _raw()
    raw["games"] = raw["games"][:1]
    config = parse_atlas_config(raw, overrides={"output": str(tmp_path / "run")})
    result = run_atlas(config, executor=make_executor("dask", 1, None), tournaments=False)
    records = read_records(config.run.output)
    assert result.errors == 0 and len(records) == result.scheduled > 0
    assert all(record.ok for record in records)


# --------------------------------------------------------------------------------- config ---


def _raw() -> dict[str, Any]:
    return tomllib.loads(QUICK.read_text())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda raw: raw.update(extra={}), r"\[extra\]: unknown section"),
        (lambda raw: raw["atlas"].update(budget=3), r"\[atlas\] budget: unknown key"),
        (lambda raw: raw["atlas"].update(epsilon_fractions=[0.1]), "must hold 0"),
        (lambda raw: raw["atlas"].update(epsilon_fractions=[0.0, 1.0]), r"\[0, 1\)"),
        (lambda raw: raw["atlas"].update(trace_nodes=[10, 5]), "increasing"),
        (lambda raw: raw["atlas"].update(tournaments=["nowhere.toml"]), "no such arena config"),
        (lambda raw: raw["atlas"].update(positions=0), r"positions: must be an integer >= 1"),
        (lambda raw: raw["games"][0].update(game="no_such_game"), "no_such_game"),
        (lambda raw: raw["games"][0].update(evaluator="rollout"), "deterministic"),
        (lambda raw: raw["games"][1].update(evaluator="heuristic"), "has no heuristic"),
        (lambda raw: raw["games"][0].update(plies=[5, 2]), r"\[low, high\]"),
        (lambda raw: raw["games"].append({"game": "tic_tac_toe"}), "appears twice"),
        (lambda raw: raw["games"][2].update(solve=[{"game": "pig"}]), "two-player deterministic"),
        (lambda raw: raw["games"].append({"game": "kuhn_poker"}), "perfect-information"),
        (lambda raw: raw["games"][0].update(speed=1), r"speed: unknown key"),
        (lambda raw: raw["games"][0].update(rollouts=4), "seeded_rollout evaluator only"),
        (lambda raw: raw["games"][1].update(rollouts=0), "rollouts: must be an integer >= 1"),
        (lambda raw: raw["games"][0].update(plies=[12, 14]), "ends before that"),
        (lambda raw: raw["games"].append({"game": "nim(pile_sizes=1;2)"}), "add a label"),
        (lambda raw: raw["games"][2].update(solve=[{"game": "nim"}]), "leave its solve sets"),
        (
            lambda raw: raw["games"][1]["solve"].append({"game": "tic_tac_toe"}),
            "solved in row tic_tac_toe already",
        ),
        (
            lambda raw: raw["games"][0].update(solve=[{"game": "checkers(rows=4,columns=4)"}]),
            "ends before that",
        ),
    ],
)
def test_a_malformed_config_is_refused_naming_the_key(change: Any, message: str) -> None:
    raw = _raw()
    change(raw)
    with pytest.raises(AtlasConfigError, match=message):
        parse_atlas_config(raw, source="atlas.toml")


def test_the_full_config_loads_with_every_row_kind() -> None:
    config = load_atlas_config(FULL)
    kinds = Counter(entry.kind for entry in config.games)
    assert kinds["two_player"] >= 30 and kinds["chance"] >= 6 and kinds["n_player"] >= 6
    assert len(first_stage(config)) == 2 * len(config.games)


def test_a_whole_number_of_seconds_is_the_same_setting_as_its_float() -> None:
    whole, decimal = _raw(), _raw()
    whole["atlas"]["openspiel_seconds"] = 1
    decimal["atlas"]["openspiel_seconds"] = 1.0
    fingerprints = {parse_atlas_config(raw).fingerprint() for raw in (whole, decimal)}
    assert len(fingerprints) == 1


# --------------------------------------------------------------------------------- script ---


def test_the_script_runs_the_quick_atlas_and_writes_the_report(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    command = [
        sys.executable,
        str(ROOT / "scripts" / "atlas.py"),
        "--config=configs/atlas_quick.toml",
    ]
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    output = tmp_path / "runs" / "atlas_quick"
    report = (output / "report.md").read_text()
    assert "## Q1" in report and "--report_only" in report
    for name in ("savings.png", "branching.png", "intervals.png"):
        assert (output / name).read_bytes().startswith(b"\x89PNG")
    assert "babmcts vs mcts" in report.split("## Tournaments")[1]
    assert (output / "tournament" / "summary.md").exists()
    again = subprocess.run(
        [*command, "--report_only"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert again.returncode == 0 and "## Q1" in again.stdout
    bad = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "atlas.py"), "--config=nowhere.toml"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "nowhere.toml" in bad.stderr


def test_a_bound_one_rounding_step_wide_is_not_a_different_value() -> None:
    # Bounded Star-2 at epsilon 0 returns [-0.11111111111111112, -0.11111111111111102] at depth 4
    # here (a chance node's weighted bounds differ in the last bits); expectiminimax gives
    # -0.1111111111111111.
    config = load_atlas_config(FULL)
    position = positions_of(config, config.game("einstein_wurfelt_nicht"))[2]
    comparison = measures.versus_openspiel(
        position, algorithm="bounded_star2", evaluator="seeded_rollout", seconds=10, max_depth=4
    )
    assert comparison.depths == 4 and comparison.mismatches == 0


def test_the_minimal_tree_of_a_paranoid_search_counts_the_root_players_moves() -> None:
    # b = 2, d = 3, three players: levels 1 + 2 + 3 + 5 (the root player moves once in 3 plies).
    assert knuth_moore_nodes(2, 3, players=3) == 11
    assert knuth_moore_nodes(3, 4) == 1 + 3 + 5 + 11 + 17  # two players: Knuth and Moore's
    assert knuth_moore_nodes(3, 4, players=2) == knuth_moore_nodes(3, 4)


def test_b_eff_counts_only_searches_that_ran_to_the_depth() -> None:
    """A capped search (its last completed depth lower) or one a proof ended early says
    nothing of the depth-d tree; a row left with none is not in the table."""
    config = parse_atlas_config(_raw())
    searches = pd.DataFrame(
        [
            {
                "label": "tic_tac_toe",
                "fraction": 0.0,
                "stopped_by": "depth",
                "depth": 4,
                "nodes": 81,
            },
            {
                "label": "tic_tac_toe",
                "fraction": 0.0,
                "stopped_by": "nodes",
                "depth": 2,
                "nodes": 300,
            },
            {
                "label": "tic_tac_toe",
                "fraction": 0.2,
                "stopped_by": "depth",
                "depth": 4,
                "nodes": 16,
            },
            {
                "label": "clobber_4x4",
                "fraction": 0.0,
                "stopped_by": "solved",
                "depth": 3,
                "nodes": 50,
            },
        ]
    )
    facts = pd.DataFrame(
        [
            {"label": label, "chance": False, "branching_mean": 6.0, "players": 2}
            for label in ("tic_tac_toe", "clobber_4x4")
        ]
    )
    beff = beff_frame(config, searches, facts)
    assert beff["label"].tolist() == ["tic_tac_toe"]
    assert beff["depth"].tolist() == [4] and beff["b_eff"].iloc[0] == pytest.approx(3.0)
    assert beff["b_km"].iloc[0] == pytest.approx(knuth_moore_nodes(6, 4) ** 0.25)


def test_a_pruning_ratio_needs_plain_max_n_to_have_completed() -> None:
    frame = pd.DataFrame(
        [
            {
                "label": "g",
                "index": 0,
                "pruning": "none",
                "completed": False,
                "nodes": 100,
                "values": [0.0, 1.0],
            },
            {
                "label": "g",
                "index": 0,
                "pruning": "shallow",
                "completed": True,
                "nodes": 10,
                "values": [1.0, 0.0],
            },
            {
                "label": "g",
                "index": 1,
                "pruning": "none",
                "completed": True,
                "nodes": 100,
                "values": [0.0, 1.0],
            },
            {
                "label": "g",
                "index": 1,
                "pruning": "shallow",
                "completed": True,
                "nodes": 40,
                "values": [0.0, 1.0],
            },
        ]
    )
    result = pruning_frame(frame)
    assert result["plain_completed"].tolist() == [False, False, True, True]
    assert result["same_value"].tolist() == [True, False, True, True]


def test_a_tournament_table_reports_every_pairing_of_its_bots_once() -> None:
    """A three-bot table (the n-player orderings) has three questions, not the first bot's two."""
    pairs = listed_pairs([["brs_plus", "maxn", "paranoid"], ["rivest", "ab"]])
    assert pairs == {
        ("brs_plus", "maxn"),
        ("brs_plus", "paranoid"),
        ("maxn", "paranoid"),
        ("rivest", "ab"),
    }


def test_the_tournament_figure_shows_every_listed_pairing_with_its_interval() -> None:
    """One panel per tournament: a row per game for a single pairing, a row per pairing for a
    table of three."""

    def scores(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "game": game,
                    "bot": bot,
                    "opponent": opponent,
                    "games": 40,
                    "score": score,
                    "score_low": score - 0.1,
                    "score_high": score + 0.1,
                }
                for game, bot, opponent, score in rows
            ]
        )

    figure = plots.tournaments_figure(
        {
            "sims.toml": scores(
                [("pig", "babmcts", "mcts", 0.45), ("hex", "babmcts", "mcts", 0.5)]
            ),
            "orderings.toml": scores(
                [
                    ("cc", "brs_plus", "maxn", 0.54),
                    ("cc", "brs_plus", "paranoid", 0.47),
                    ("cc", "maxn", "paranoid", 0.42),
                ]
            ),
            "not yet played.toml": pd.DataFrame(),
        }
    )
    assert figure is not None
    visible = [axes for axes in figure.axes if axes.get_visible()]
    assert [axes.get_title() for axes in visible] == ["sims.toml", "orderings.toml\ncc"]
    labels = [[label.get_text() for label in axes.get_yticklabels()] for axes in visible]
    assert labels == [
        ["pig (n=40)", "hex (n=40)"],
        [
            "brs_plus vs maxn (n=40)",
            "brs_plus vs paranoid (n=40)",
            "maxn vs paranoid (n=40)",
        ],
    ]
    assert visible[0].get_xlabel() == "score of babmcts vs mcts, % (95% Wilson)"
    (errorbars,) = visible[1].containers
    assert errorbars.lines[0].get_xdata().tolist() == pytest.approx([54, 47, 42])
    assert plots.tournaments_figure({"none.toml": pd.DataFrame()}) is None


def test_the_committed_atlas_report_is_what_its_records_give(tmp_path: Path) -> None:
    """The manual's `--report_only` command, run on a copy of the committed files, writes the
    committed report.md: the records, the config and the report agree."""
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    shutil.copytree(ROOT / "results" / "atlas", tmp_path / "results" / "atlas")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    command = [
        sys.executable,
        str(ROOT / "scripts" / "atlas.py"),
        "--config",
        "configs/atlas.toml",
        "--report_only",
        "--nofigures",  # the PNGs are drawn by the quick atlas's test
    ]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    written = (tmp_path / "results" / "atlas" / "report.md").read_text()
    assert written == (ROOT / "results" / "atlas" / "report.md").read_text()
