"""The manual builds in strict mode, and every Python block of the README and the manual runs.

A strict build fails on a broken link, a link to a missing anchor, a page left out of the
navigation that the navigation names, or an API reference that does not resolve; the commands
the documentation shows are run by `test_documented_commands.py`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from spiel_bounded.arena.config import parse_config
from tests.helpers import DOCUMENTS, ROOT

PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def test_the_manual_builds_in_strict_mode(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    bots_page = (tmp_path / "bots" / "index.html").read_text()
    # The generated sections are there: a bot's parameter table and the config reference.
    assert "tt_capacity" in bots_page and "<!-- generated" not in bots_page
    reference = (tmp_path / "config-reference" / "index.html").read_text()
    assert "outcome_weight" in reference and "<!-- generated" not in reference
    assert "spiel_bounded.load_bot" in (tmp_path / "api" / "index.html").read_text()


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """The strict build is a real check: the same build over a copy with one broken link fails,
    naming it."""
    copy = tmp_path / "clone"
    shutil.copytree(ROOT / "docs", copy / "docs")
    for name in ("results", "configs"):
        (copy / name).symlink_to(ROOT / name)
    docs = copy / "docs"
    (docs / "citing.md").write_text((docs / "citing.md").read_text() + "\n[gone](nowhere.md)\n")
    (copy / "mkdocs.yml").write_text((ROOT / "mkdocs.yml").read_text())
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        cwd=copy,
    )
    assert completed.returncode != 0
    assert "nowhere.md" in completed.stderr


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_python_block_runs(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page's blocks run in order in one module (a later block may use an earlier one's
    names), as a reader pastes them."""
    blocks = PYTHON_BLOCK.findall(path.read_text())
    module = types.ModuleType(f"documented_{path.stem.replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses look it up
    for number, block in enumerate(blocks, 1):
        name = f"{path.relative_to(ROOT)} (python block {number})"
        exec(compile(block, name, "exec"), module.__dict__)


TOURNAMENT_BLOCK = re.compile(r"```toml\n(\[tournament\].*?)```", re.DOTALL)


def test_every_tournament_config_shown_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the configs name files of the repository
    shown = [
        (path, block) for path in DOCUMENTS for block in TOURNAMENT_BLOCK.findall(path.read_text())
    ]
    assert shown
    for path, block in shown:
        parse_config(block, source=str(path.relative_to(ROOT)))
