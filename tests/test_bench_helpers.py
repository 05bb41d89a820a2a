"""The before/after benchmark helpers (`scripts/benchmarks/revisions.py`, `before_after.py`,
the self-play suite's filing-day loop): a failing measurement says which script failed and why,
bot specifications parse as the suite's flag help says, an unknown bot is refused with the
registered names, and the self-play suite's script mode times the games it is given."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from benchmarks import before_after, revisions, selfplay  # after the path set-up


def test_a_failing_measurement_names_the_script_and_its_error(tmp_path: Path) -> None:
    script = tmp_path / "measure.py"
    script.write_text("raise ValueError('no such game: chess9')\n")
    with pytest.raises(RuntimeError, match=r"measure\.py \[1\] under .* failed:\n(.|\n)*chess9"):
        revisions.run_json(revisions.ROOT, str(script), [1])


def test_a_measurement_returns_its_last_json_line(tmp_path: Path) -> None:
    script = tmp_path / "measure.py"
    script.write_text(
        "import json, sys\nprint('noise')\nprint(json.dumps(json.loads(sys.argv[1])))\n"
    )
    assert revisions.run_json(revisions.ROOT, str(script), [1, "a"]) == [1, "a"]


def test_bot_specifications_parse_json_values_and_text() -> None:
    assert before_after.bot_parameters("maxn:pruning=speculative;depth=3") == (
        "maxn",
        {"pruning": "speculative", "depth": 3},
    )
    assert before_after.bot_parameters("paranoid") == ("paranoid", {})


def test_a_revision_whose_native_engine_does_not_build_is_an_error(tmp_path: Path) -> None:
    """Else the code before would run on the Python engines, unnoticed."""
    (tmp_path / "setup.py").write_text("import sys\nsys.exit('no compiler here')\n")
    with pytest.raises(RuntimeError, match=r"revision abc1234 did not build:\n(.|\n)*no compiler"):
        revisions._build_native(tmp_path, "abc1234")
    (tmp_path / "setup.py").write_text("print('built nothing')\n")  # exit 0, no engine
    with pytest.raises(RuntimeError, match="did not build"):
        revisions._build_native(tmp_path, "abc1234")


def test_a_bot_with_another_games_network_is_left_out_of_that_game() -> None:
    """One list of bots holds each game's network: on the other games they are left out."""
    network = "bounded_ab:evaluator=net:results/models/connect_four"
    assert before_after.measure("tic_tac_toe", network, 0.01, 1, 1, [2, 3], 0) == {
        "refused": "tic_tac_toe"
    }
    measured = before_after.measure("connect_four", network, 0.01, 1, 1, [2, 3], 0)
    assert len(measured["fixed"]["nodes"]) == 1 and measured["fixed"]["nodes"][0] > 0
    # A network that is not there is an error, not a game to leave out.
    with pytest.raises(ValueError, match="no/such/network"):
        missing = "bounded_ab:evaluator=net:no/such/network"
        before_after.measure("connect_four", missing, 0.01, 1, 1, [2, 3], 0)


def test_an_unknown_bot_is_refused_with_the_registered_names(tmp_path: Path) -> None:
    command = [
        sys.executable,
        str(revisions.ROOT / "scripts" / "bench.py"),
        "--suites=before_after",
        "--before_after_bots=maxn,nosuchbot",
        f"--output={tmp_path / 'bench.md'}",
    ]
    done = subprocess.run(command, cwd=revisions.ROOT, capture_output=True, text=True)
    assert done.returncode != 0
    assert "unknown bot 'nosuchbot'; registered bots: " in done.stderr
    assert not (tmp_path / "bench.md").exists()


def test_the_selfplay_suite_times_a_python_loop_under_the_code_it_is_given() -> None:
    script = str(revisions.ROOT / "scripts" / "benchmarks" / "selfplay.py")
    seconds, positions = revisions.run_json(revisions.ROOT, script, ["heuristic", 2])
    assert seconds > 0.0
    # Two connect_four games of at least 7 plies each, every one a position.
    assert positions >= 14


def test_the_selfplay_suite_reads_a_network_from_anywhere_and_pairs_its_ratios() -> None:
    assert selfplay._evaluator_path("heuristic") == "heuristic"
    assert selfplay._evaluator_path("net:results/models/connect_four") == (
        "net:" + str(Path("results/models/connect_four").resolve())
    )
    cell = selfplay._ratio_cell(np.array([4.0, 9.0, 6.0]), np.array([1.0, 1.0, 2.0]))
    assert cell == "4.0x [3.0, 9.0]"
