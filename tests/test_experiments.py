"""Tests for `spiel_bounded.experiments` and `scripts/epsilon_sweep.py`: committed position sets
regenerate exactly, task records are right where the answer is known, the bound guarantee holds
on every record (property test), a killed sweep resumes losing and repeating nothing, a changed
or malformed config is refused, and the report writes its tables and plots."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spiel_bounded.evaluators import make_evaluator
from spiel_bounded.experiments.config import (
    SweepConfig,
    SweepConfigError,
    load_sweep_config,
    parse_sweep_config,
)
from spiel_bounded.experiments.positions import Position, PositionSet, positions_path
from spiel_bounded.experiments.report import build_report, knuth_moore_nodes, write_report
from spiel_bounded.experiments.runner import check_records, read_records, run_sweep
from spiel_bounded.experiments.tasks import (
    EXACT,
    Task,
    TaskRecord,
    make_task,
    run_task,
    settings_hash,
)
from spiel_bounded.oracles import solve, solve_depth_limited, solve_paranoid
from spiel_bounded.runs import ConfigChangedError, InlineExecutor, Job
from spiel_bounded.runs.settings import with_run

ROOT = Path(__file__).resolve().parents[1]
FULL = ROOT / "configs" / "epsilon_sweep.toml"
QUICK = ROOT / "configs" / "epsilon_sweep_quick.toml"
DEADLINE = 60.0


def quick(tmp_path: Path) -> SweepConfig:
    return with_run(load_sweep_config(QUICK), output=str(tmp_path / "sweep"))


def tree_task(algorithm: str, game: str, fraction: float, seed: int = 0, **params: Any) -> Task:
    """A task on the first decision node of the tree `seed` (past a chance node at the root)."""
    (position,) = PositionSet(name="s", game=game, seed=seed, plies=0, count=1).materialise()
    return make_task(
        run="r",
        algorithm=algorithm,
        set="s",
        index=0,
        position=position,
        fraction=fraction,
        params=params,
    )


# --------------------------------------------------------------------------------- positions ---


def test_committed_position_sets_regenerate_exactly() -> None:
    config = load_sweep_config(FULL)
    for position_set in config.sets:
        path = positions_path(ROOT / config.positions_directory, position_set)
        committed = json.loads(path.read_text())
        assert committed == json.loads(position_set.to_json(position_set.materialise())), path


def test_synthetic_sets_are_one_tree_per_position() -> None:
    trees = PositionSet(
        name="t", game="bounded_random_tree(seed=99,branching=2)", seed=5, plies=1, count=3
    )
    positions = trees.materialise()
    assert [p.game for p in positions] == [
        f"bounded_random_tree(branching=2,seed={seed})" for seed in (5, 6, 7)
    ]
    assert all(len(p.actions) == 1 for p in positions)
    assert positions == trees.materialise()


# ------------------------------------------------------------------------------------- tasks ---


def test_epsilon_zero_records_equal_the_oracles() -> None:
    game = "bounded_random_tree(branching=3,depth=5,seed=0)"
    state = Position(game=game, actions=()).state()
    evaluate = make_evaluator("heuristic", state.get_game()).evaluate
    record = run_task(tree_task("bounded_ab", game, 0.0, depth=3))
    assert record.ok and record.proved and record.nodes > 0
    assert record.lower == record.upper == pytest.approx(solve_depth_limited(state, 3, evaluate)[0])
    exact = run_task(tree_task(EXACT, game, 0.0))
    assert exact.lower == exact.upper == pytest.approx(solve(state)[0])
    mcts = run_task(tree_task("babmcts", game, 0.0, simulations=100_000, nodes=100_000))
    assert mcts.proved and mcts.lower == mcts.upper == pytest.approx(exact.lower)
    three = "bounded_random_tree(branching=2,depth=4,players=3,seed=0)"
    root = Position(game=three, actions=()).state()
    record = run_task(tree_task("paranoid", three, 0.0, depth=4))
    assert record.lower == pytest.approx(solve_paranoid(root, 0, math.inf, evaluate))


def test_a_failing_search_is_recorded_with_its_traceback() -> None:
    task = tree_task("bounded_ab", "bounded_random_tree(depth=3)", 0.0, evaluator="net:/no/net")
    record = run_task(task)
    assert not record.ok and "/no/net" in record.error and not record.proved
    assert record.settings_hash == task.settings_hash


def test_a_bad_parameter_is_refused_before_any_task_runs() -> None:
    with pytest.raises(ValueError, match="parameter 'evaluator' of algorithm 'bounded_ab'"):
        tree_task("bounded_ab", "bounded_random_tree(depth=3)", 0.0, evaluator="x")
    with pytest.raises(ValueError, match="epsilon is swept"):
        tree_task("bounded_ab", "bounded_random_tree(depth=3)", 0.0, epsilon=0.1)


_ALGORITHMS = ("bounded_ab", "bounded_star1", "bounded_star2", "babmcts", "bounded_pns")


@settings(max_examples=40, deadline=None)
@given(
    algorithm=st.sampled_from(_ALGORITHMS),
    seed=st.integers(0, 10_000),
    branching=st.integers(2, 4),
    depth=st.integers(2, 5),
    chance=st.booleans(),
    fraction=st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.2, 0.5, 0.99]),
)
def test_realised_error_never_exceeds_epsilon(
    algorithm: str, seed: int, branching: int, depth: int, chance: bool, fraction: float
) -> None:
    """The bound guarantee: lower <= exact <= upper and exact - lower <= epsilon."""
    chance = chance and algorithm in ("bounded_star1", "bounded_star2", "babmcts")
    values = "integer_values=1,min_value=-3.0,max_value=3.0" if algorithm == "bounded_pns" else ""
    game = (
        f"bounded_random_tree(branching={branching},depth={depth},"
        f"chance={1.0 if chance else 0.0}{',' + values if values else ''})"
    )
    params = {"nodes": 200_000} if algorithm in ("babmcts", "bounded_pns") else {}
    if algorithm == "babmcts":
        params["simulations"] = 1_000_000
    task = tree_task(algorithm, game, fraction, seed, **params)
    record = run_task(task)
    exact = run_task(replace(task, algorithm=EXACT)).lower
    assert record.ok and record.proved
    assert record.lower - 1e-9 <= exact <= record.upper + 1e-9
    assert exact - record.lower <= record.epsilon + 1e-9
    assert record.upper - record.lower <= record.epsilon + 1e-9
    assert record.epsilon == pytest.approx(fraction * record.value_range)


# ------------------------------------------------------------------------------------ runner ---


class _StopAfter:
    """Runs `count` tasks inline, then stops the run as Ctrl-C would."""

    def __init__(self, count: int) -> None:
        self.count = count

    def run(self, job: Job[Task, Any], tasks: Sequence[Task], done: Any) -> None:
        for task in tasks[: self.count]:
            done(run_task(task))
        raise KeyboardInterrupt


class _Recording(InlineExecutor):
    def __init__(self) -> None:
        self.given: list[str] = []

    def run(self, job: Job[Task, Any], tasks: Sequence[Task], done: Any) -> None:
        self.given = [task.task_id for task in tasks]
        super().run(job, tasks, done)


def test_a_killed_sweep_resumes_losing_and_repeating_nothing(tmp_path: Path) -> None:
    config = quick(tmp_path)
    output = Path(config.run.output)
    script = (
        "import sys, time\n"
        "from spiel_bounded.experiments import runner, tasks\n"
        "from spiel_bounded.experiments.config import load_sweep_config\n"
        "from spiel_bounded.runs.settings import with_run\n"
        "def slow(task):\n"
        "    time.sleep(0.05)\n"
        "    return tasks.run_task(task)\n"
        "runner.run_task = slow\n"
        "from spiel_bounded.runs import InlineExecutor\n"
        f"config = with_run(load_sweep_config({str(QUICK)!r}), output={str(output)!r})\n"
        "runner.run_sweep(config, executor=InlineExecutor())\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = subprocess.Popen([sys.executable, "-c", script], env=env)
    records = output / "records.jsonl"
    deadline = time.monotonic() + DEADLINE
    while (not records.exists() or records.read_text().count("\n") < 5) and process.poll() is None:
        assert time.monotonic() < deadline, "the sweep wrote no records"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = {record.task_id for record in read_records(output)}
    assert 5 <= len(before) < len(config.tasks())
    with open(records, "ab") as handle:  # a torn last line, as a kill mid-write could leave
        handle.write(b'{"task_id": "torn')
    recording = _Recording()
    result = run_sweep(config, executor=recording)
    assert result.resumed == len(before)
    assert not set(recording.given) & before
    ids = [record.task_id for record in read_records(output)]
    assert len(ids) == len(set(ids)) == len(config.tasks())


def test_an_interrupted_run_keeps_its_records_and_a_changed_config_is_refused(
    tmp_path: Path,
) -> None:
    config = quick(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(config, executor=_StopAfter(3))
    assert len(read_records(config.run.output)) == 3
    changed = parse_sweep_config(
        {**tomllib.loads(QUICK.read_text()), "sweep": {"epsilon_fractions": [0.0, 0.1]}},
        overrides={"output": config.run.output},
    )
    with pytest.raises(ConfigChangedError, match="epsilon_fractions"):
        run_sweep(changed, executor=InlineExecutor())
    # The [run] section may change between resumed runs.
    result = run_sweep(with_run(config, workers=2), executor=InlineExecutor())
    assert result.resumed == 3


def test_a_record_made_with_other_settings_never_counts_as_done(tmp_path: Path) -> None:
    """Resume and the report apply one check: a record whose settings differ from its task's
    (a default changed since it was made) is run again, not shown, and what differs is said."""
    config = quick(tmp_path)
    run_sweep(config, executor=InlineExecutor())
    output = Path(config.run.output)
    records = read_records(output)
    tasks = {task.task_id: task for task in config.tasks()}
    searches = [r for r in records if r.algorithm == "bounded_ab"][:2]
    legacy = [r for r in records if r.algorithm == "bounded_pns"][:1]
    older = {r.task_id: {**tasks[r.task_id].settings, "tt_capacity": 2_000_000} for r in searches}
    hashes = {task_id: settings_hash("bounded_ab", values) for task_id, values in older.items()}
    changed = {r.task_id: replace(r, settings_hash=hashes[r.task_id]) for r in searches}
    changed |= {r.task_id: replace(r, settings_hash="") for r in legacy}  # written before hashes
    (output / "records.jsonl").write_text(
        "".join(changed.get(r.task_id, r).to_line() for r in records)
    )
    manifest = json.loads((output / "sweep.json").read_text())
    manifest["settings"].update({hashes[task_id]: values for task_id, values in older.items()})
    (output / "sweep.json").write_text(json.dumps(manifest))

    report = build_report(config, "cmd")
    assert "Not shown: 3 finished record(s) were made with other settings" in report.markdown
    assert "bounded_ab: tt_capacity 2000000 -> None" in report.markdown
    assert "bounded_pns: settings not recorded" in report.markdown
    assert not set(report.frame["task_id"]) & set(changed)

    recording = _Recording()
    result = run_sweep(config, executor=recording)
    assert sorted(recording.given) == sorted(changed)
    assert result.other_settings == 3 and "tt_capacity 2000000 -> None" in result.settings_note
    assert "Not shown" not in build_report(config, "cmd").markdown


def _mutated(change: dict[str, Any], runs: dict[str, Any] | None = None) -> dict[str, Any]:
    raw = tomllib.loads(QUICK.read_text())
    for section, values in change.items():
        raw[section] = {**raw[section], **values}
    if runs is not None:
        raw["runs"] = [{**raw["runs"][0], **runs}]
    return raw


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (_mutated({}, {"algorithm": "alphabeta"}), "unknown algorithm 'alphabeta'; accepted: "),
        (_mutated({}, {"params": {"depht": 3}}), "unknown parameter .*accepted: .*depth"),
        (_mutated({}, {"params": {"depth": 0}}), "depth"),
        (_mutated({}, {"sets": ["nope"]}), "unknown set 'nope'; accepted: tree_b3_d4"),
        (_mutated({}, {"algorithm": "bounded_pns"}), "bounded_pns cannot search"),
        (_mutated({"sweep": {"epsilon_fractions": [0.0, 1.5]}}), r"in \[0, 1\).*1\.5"),
        (_mutated({"sweep": {"epsilon_fractions": [0.0, 1.0]}}), r"in \[0, 1\).*got 1"),
        (_mutated({"sweep": {"epsilon_fractions": [0.0, -0.1]}}), r"in \[0, 1\)"),
        (_mutated({"sweep": {"epsilon_fractions": [0.1]}}), "must include 0"),
        (_mutated({"sweep": {"epsilons": [0.0]}}), "unknown key; accepted: epsilon_fractions"),
        (_mutated({"run": {"executor": "threads"}}), "one of process, dask, inline"),
        ({**_mutated({}), "extra": {}}, "unknown section"),
    ],
)
def test_malformed_configs_are_refused(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(SweepConfigError, match=message):
        parse_sweep_config(raw, source="x.toml")


def test_an_unknown_game_is_refused() -> None:
    raw = tomllib.loads(QUICK.read_text())
    raw["sets"][0]["game"] = "conect_four"
    with pytest.raises(SweepConfigError, match="conect_four"):
        parse_sweep_config(raw, source="x.toml")


# ------------------------------------------------------------------------------------ report ---


def test_the_script_runs_a_tiny_sweep_and_writes_tables_and_plots(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    command = [sys.executable, str(ROOT / "scripts" / "epsilon_sweep.py"), f"--config={QUICK}"]
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=DEADLINE
    )
    assert done.returncode == 0, done.stderr
    output = tmp_path / "runs" / "epsilon_sweep_quick"
    report = (output / "report.md").read_text()
    assert "## Q1" in report and "## Q5" in report and "--report_only" in report
    for name in ("savings_alphabeta.png", "savings_babmcts.png", "q5_branching.png"):
        assert (output / name).read_bytes().startswith(b"\x89PNG")
    assert (output / "positions" / "tree_b3_d4.json").exists()
    config = with_run(load_sweep_config(QUICK), output=str(output))
    frame = build_report(config, "cmd").frame
    assert not frame["violation"].any()
    assert len(frame) == len([t for t in config.tasks() if t.algorithm != EXACT])
    best = frame[(frame["set"] == "tree_ordered_b3_d4") & (frame["fraction"] == 0.0)]
    assert (best["nodes"] == knuth_moore_nodes(3, 4)).all()
    again = subprocess.run(
        [*command, "--report_only"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert again.returncode == 0 and "## Q1" in again.stdout


def test_the_report_of_an_empty_directory(tmp_path: Path) -> None:
    report = build_report(quick(tmp_path), "cmd")
    assert "No finished task yet" in report.markdown
    assert write_report(report, tmp_path / "r") == [tmp_path / "r" / "report.md"]


def test_records_round_trip() -> None:
    record = run_task(tree_task("bounded_ab", "bounded_random_tree(depth=2)", 0.1))
    assert TaskRecord.from_line(record.to_line()) == record


def test_the_report_does_not_depend_on_the_order_tasks_finished(tmp_path: Path) -> None:
    config = quick(tmp_path)
    run_sweep(config, executor=InlineExecutor())
    path = Path(config.run.output) / "records.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    in_order = build_report(config, "cmd").markdown
    path.write_text("".join(reversed(lines)))  # as if they had finished the other way round
    assert build_report(config, "cmd").markdown == in_order


def test_the_committed_sweep_counts_every_record_for_its_config() -> None:
    """results/experiments/sweep ran before the searches gained `engine`: its config pins them to
    the Python engine, whose settings its records carried (`runs.former_settings`), so every task
    is finished and its report is current. On another engine none of those records would count."""
    config = load_sweep_config(str(ROOT / "configs" / "epsilon_sweep.toml"))
    directory = ROOT / "results" / "experiments" / "sweep"
    manifest = json.loads((directory / "sweep.json").read_text())
    assert manifest["fingerprint"] == config.fingerprint()
    tasks = config.tasks()
    check = check_records(read_records(directory), tasks)
    assert len(check.finished) == len(tasks) and not check.other_settings
    native = [replace(task, settings={**task.settings, "engine": "auto"}) for task in tasks]
    pinned = [task for task in native if task.algorithm != "babmcts"]
    assert pinned and not check_records(read_records(directory), pinned).finished
