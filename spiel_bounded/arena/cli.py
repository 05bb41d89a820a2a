"""Command line of the arena: `spiel-bounded-arena` and `scripts/round_robin.py`.

    python scripts/round_robin.py --config configs/quick.toml [--games=connect_four ...]
    python scripts/round_robin.py --report_only --output results/round_robin

Any field of a config's [tournament], [run] and [report] sections can be overridden by the flag
of the same name; `--bots` keeps only the listed bot labels. This is the only module of the
arena that writes to the terminal: progress to stderr, the summary to stdout.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from absl import flags

from spiel_bounded import commandline
from spiel_bounded.arena.config import OVERRIDABLE, SECTION_SETTINGS, ConfigError, load_config
from spiel_bounded.arena.pooled import pool_runs
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.report_data import Report
from spiel_bounded.arena.report_files import (
    commands_in_summary,
    provenance,
    report_from_directory,
    report_of_records,
    write_report,
)
from spiel_bounded.arena.runner import RunResult, manifest_of, run_tournament
from spiel_bounded.arena.schedule import make_schedule, mismatch
from spiel_bounded.arena.settings import (
    Config,
    ReportSettings,
)
from spiel_bounded.arena.store import GameStore
from spiel_bounded.params import pick
from spiel_bounded.runs import ClusterError, Progress, StoreError

USAGE = """Round-robin tournaments between registered bots.

    spiel-bounded-arena --config configs/quick.toml     (or: python scripts/round_robin.py ...)
    spiel-bounded-arena --config configs/default.toml --games=connect_four
    spiel-bounded-arena --report_only --output results/round_robin
    spiel-bounded-arena --report_only --output results/pooled --pool=RUN_DIR,RUN_DIR,...

Plays every scheduled game that OUTPUT/games.csv does not hold yet (so rerunning resumes: a run
stopped by Ctrl-C, SIGTERM or a kill loses no finished game), shows progress on stderr, then
writes the report (summary.md, csv tables, PNG plots) and prints it. Every field of the config's
[tournament], [run] and [report] sections has a flag of the same name that overrides it.
--report_only rebuilds the report from games.csv and plays nothing; with --pool it reports the
games of several runs of one config under different seeds (replicates) together, into --output.
`--helpfull` lists every flag. See docs/tournaments.md.

Two config keys have no flag: `[tournament] openings = "FILE"` plays an opening suite (one line
of integer actions per opening; round r plays line r in every seating; refused with
opening_moves, as it gives every game its openings; `openings = { GAME = "FILE", ... }` gives
some games theirs, and opening_moves applies to the others),
and `[tournament] sprt = { elo0 = 0, elo1 = 20, alpha = 0.05, beta = 0.05 }` (a tournament of
two-player games) stops each two-bot pairing once the sequential probability ratio test over its
game pairs
(pentanomial, logistic Elo, as fishtest) accepts H0 or H1; games_per_pairing is then the most it
plays. The report adds paired statistics (Ptnml, Elo with its pentanomial interval, LOS, draw
ratio) to every two-player pairing and Plackett-Luce ratings (openskill) from finishing orders.
"""
"""What `--help` prints above the flags, whichever way the program was started."""

SHORT_USAGE = (
    "usage: {program} --config FILE [--FIELD=VALUE ...] [--force_new | --retry_errors]\n"
    "       {program} --report_only (--output DIR | --config FILE)\n"
    "       {program} --report_only --output DIR --pool=RUN_DIR,RUN_DIR[,...]"
)


class _UsageError(Exception):
    """The command line itself is wrong (not the config): short usage, then the message."""


_GAMES = "; accepted: game strings separated by commas, e.g. tic_tac_toe,go(board_size=9,komi=7.5)"


def split_games(text: str) -> list[str]:
    """Splits a comma-separated list of game strings on the commas outside parentheses.

    `"go(board_size=9,komi=7.5),tic_tac_toe"` -> `["go(board_size=9,komi=7.5)", "tic_tac_toe"]`.

    Raises:
        ValueError: The parentheses do not balance.
    """
    items = []
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"{text!r}: the ')' at position {index} closes no '('{_GAMES}")
        elif char == "," and depth == 0:
            items.append(text[start:index])
            start = index + 1
    if depth:
        raise ValueError(f"{text!r}: {depth} '(' not closed{_GAMES}")
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


class _GameListParser(flags.ListParser):
    """absl's list parser, splitting with `split_games`."""

    def parse(self, argument: Any) -> list[str]:
        if isinstance(argument, list):
            return argument
        return split_games(str(argument))


_CONFIG = flags.DEFINE_string("config", None, "Tournament config (TOML).")
_REPORT_ONLY = flags.DEFINE_bool(
    "report_only", False, "Rebuild the report of --output from its games.csv; play nothing."
)
_FORCE_NEW = flags.DEFINE_bool(
    "force_new",
    False,
    "Start over: archive earlier results of the output directory (under previous/) instead of "
    "resuming; needed when the tournament config changed since the first run.",
)
_RETRY_ERRORS = flags.DEFINE_bool(
    "retry_errors",
    False,
    "Also play again the games whose result is an error (a bot raised or chose an illegal "
    "move, or crashed its worker), e.g. after fixing a bot. Games that could not start (setup "
    "and runner errors) are always played again; their old rows stay in games.csv and the "
    "report counts the last row of each game.",
)
_BOTS = flags.DEFINE_list("bots", None, "Keep only these bot labels of the config.")
_POOL = flags.DEFINE_list(
    "pool",
    None,
    "With --report_only: report the games of these results directories (runs of one config "
    "that differ only in their seed) together, into --output.",
)
_QUIET = flags.DEFINE_bool("quiet", False, "No progress display.")


def _help(name: str) -> str:
    """A config override's help: its section and the declaration's doc."""
    section = OVERRIDABLE[name]
    return commandline.setting_help(section, name, SECTION_SETTINGS[section])


_OVERRIDES: dict[str, Any] = {
    "games": flags.DEFINE(
        _GameListParser(),
        "games",
        None,
        _help("games") + " Comma-separated (commas inside a game's parentheses are its own), "
        "e.g. --games='tic_tac_toe,go(board_size=9,komi=7.5)'.",
        serializer=flags.CsvListSerializer(","),
    ),
    **{
        name: flags.DEFINE_integer(name, None, _help(name))
        for name in ("games_per_pairing", "opening_moves", "seed", "bootstrap")
    },
    **{
        name: flags.DEFINE_string(name, None, _help(name))
        for name in ("pairing", "baseline", "seating", "anchor")
    },
    **commandline.define_run_flags(),
    "focus": flags.DEFINE_list("focus", None, _help("focus")),
    "seconds_per_move": flags.DEFINE_float("seconds_per_move", None, _help("seconds_per_move")),
    "skip_unsupported": flags.DEFINE_bool("skip_unsupported", None, _help("skip_unsupported")),
}


def format_progress(progress: Progress, width: int = 24) -> str:
    """One line: bar, games done, rate, elapsed, time left, errors."""
    fraction = progress.done / progress.total if progress.total else 1.0
    filled = round(width * fraction)
    left = progress.seconds_left
    parts = [
        f"[{'#' * filled}{'-' * (width - filled)}]",
        f"{progress.done}/{progress.total} games ({100 * fraction:.1f}%)",
        f"{progress.rate:.2f} games/s",
        f"elapsed {_clock(progress.elapsed)}",
        f"left ~{_clock(left)}" if left is not None else "left ?",
        f"errors {progress.errors}",
    ]
    if progress.resumed:
        parts.append(f"({progress.resumed} resumed)")
    return "  ".join(parts)


def _clock(seconds: float) -> str:
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class ProgressDisplay:
    """Writes progress to a stream: a bar redrawn in place on a terminal, else a line now
    and then."""

    def __init__(self, stream: TextIO, *, every: float = 10.0) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.every = every if not self.tty else 0.25
        self.last = -float("inf")

    def __call__(self, record: GameRecord, progress: Progress) -> None:
        now = time.monotonic()
        final = progress.done == progress.total
        if not record.ok:
            self._line(f"error in {record.game_id}: {_last_line(record.error)}")
        if now - self.last < self.every and not final:
            return
        self.last = now
        text = format_progress(progress)
        if self.tty:
            self.stream.write("\r" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _line(self, text: str) -> None:
        self.stream.write(("\r\033[K" if self.tty else "") + text + "\n")
        self.stream.flush()


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def _program() -> str:
    name = Path(sys.argv[0]).name
    return "python scripts/round_robin.py" if name == "round_robin.py" else "spiel-bounded-arena"


def _report(directory: Path, report: Report) -> None:
    sys.stdout.write(report.markdown + "\n")
    try:
        written = write_report(report, directory)
    except OSError as error:
        where = error.filename or directory
        sys.stderr.write(
            f"error: cannot write the report files into {directory} ({error.strerror}: "
            f"{where}); the report above was printed only\n"
        )
        sys.exit(1)
    sys.stdout.write(f"\nWrote {', '.join(str(path) for path in written)}\n")


def _report_only(program: str, overrides: dict[str, Any]) -> None:
    """--report_only: the report of a results directory from its games.csv; plays nothing and
    never writes run.json (a finished run may sit in a read-only directory)."""
    config = None
    if _CONFIG.value is not None:
        with commandline.native_errors_said_once():
            config = load_config(_CONFIG.value, overrides=overrides, bots=_BOTS.value)
    output = overrides["output"] or (config.run.output if config is not None else None)
    if output is None:
        raise _UsageError(
            "--report_only needs --output DIR (a results directory) or --config FILE (its "
            "[run] output)"
        )
    directory = Path(output)
    store = GameStore(directory)
    if not store.games_path.exists():
        raise _UsageError(f"{store.games_path} does not exist")
    settings = None  # the [report] settings stored in run.json
    manifest = None
    if config is not None:
        # The config stands in for run.json (which may be damaged): it must be the one that
        # played these games.
        schedule = make_schedule(config.tournament)
        wrong = mismatch(store.read_records(), schedule, config.source)
        if wrong:
            raise StoreError(
                f"{store.games_path} {wrong}. Report with the config that played them, or "
                "without --config (from run.json)"
            )
        manifest = manifest_of(config, len(schedule))
        settings = config.report
    elif overrides["anchor"] is not None or overrides["bootstrap"] is not None:
        stored = store.read_manifest()
        settings = _report_settings(stored.report if stored is not None else {}, overrides)
    source = (
        f"--config {shlex.quote(_CONFIG.value)}"
        if _CONFIG.value is not None
        else f"--output {shlex.quote(str(directory))}"
    )
    command = f"{program} --report_only {source}"
    said = provenance(_played(store), command, rebuilt=True)
    _report(directory, report_from_directory(directory, settings, command=said, manifest=manifest))


def _report_settings(stored: Mapping[str, Any], overrides: dict[str, Any]) -> ReportSettings:
    """The [report] settings stored in run.json, with --anchor and --bootstrap over them."""
    base = ReportSettings(**pick(ReportSettings, stored))
    return ReportSettings(
        anchor=overrides["anchor"] or base.anchor,
        bootstrap=overrides["bootstrap"] if overrides["bootstrap"] is not None else base.bootstrap,
        seed=base.seed,
    )


def _pooled_report(program: str, overrides: dict[str, Any]) -> None:
    """--report_only --pool: the report of several replicate runs' games, written into --output
    (which must not hold games of its own)."""
    if _CONFIG.value is not None:
        raise _UsageError(
            "--pool reports the runs from their own run.json files; --config would do nothing"
        )
    if overrides["output"] is None:
        raise _UsageError("--pool needs --output DIR: where the pooled report is written")
    accepted = ("output", "anchor", "bootstrap")
    unused = [
        name for name, value in overrides.items() if value is not None and name not in accepted
    ]
    if _BOTS.value:
        unused.append("bots")
    if unused:
        raise _UsageError(
            f"--pool reports the games as played; --{', --'.join(unused)} would do nothing "
            "(accepted beside it: --output, --anchor, --bootstrap)"
        )
    directory = Path(overrides["output"])
    if GameStore(directory).games_path.exists():
        raise _UsageError(
            f"{directory} holds a games.csv of its own; a pooled report goes into a directory "
            "that holds no games (name another --output)"
        )
    pooled = pool_runs(_POOL.value or [])
    settings = _report_settings(pooled.manifest.report, overrides)
    command = f"{program} --report_only --output {shlex.quote(str(directory))} --pool=" + ",".join(
        shlex.quote(str(path)) for path in pooled.directories
    )
    said = provenance(pooled.manifest.commands, command, rebuilt=True)
    report = report_of_records(pooled.records, pooled.manifest, settings, command=said)
    _report(directory, report)


def main(argv: Sequence[str]) -> None:
    program = _program()
    try:
        _main(argv, program)
    except _UsageError as error:
        sys.stderr.write(
            f"{SHORT_USAGE.format(program=program)}\nerror: {error}\n"
            f"({program} --help describes the flags)\n"
        )
        sys.exit(2)


def _main(argv: Sequence[str], program: str) -> None:
    if len(argv) > 1:
        raise _UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    overrides = {name: flag.value for name, flag in _OVERRIDES.items()}
    if _REPORT_ONLY.value:
        for name, flag in (("force_new", _FORCE_NEW), ("retry_errors", _RETRY_ERRORS)):
            if flag.value:
                raise _UsageError(
                    f"--report_only plays nothing, so --{name} would do nothing; use one or "
                    "the other"
                )
    if _POOL.value and not _REPORT_ONLY.value:
        raise _UsageError("--pool only reports (with --report_only); it plays nothing")
    try:
        if _REPORT_ONLY.value:
            if _POOL.value:
                _pooled_report(program, overrides)
            else:
                _report_only(program, overrides)
            return
        if _CONFIG.value is None:
            raise _UsageError("--config FILE is required (or --report_only --output DIR)")
        with commandline.native_errors_said_once():
            config = load_config(_CONFIG.value, overrides=overrides, bots=_BOTS.value)
        display = None if _QUIET.value else ProgressDisplay(sys.stderr)
        played = " ".join([program, *(shlex.quote(arg) for arg in sys.argv[1:])])
        result = run_tournament(
            config,
            force_new=_FORCE_NEW.value,
            retry_errors=_RETRY_ERRORS.value,
            on_progress=display,
            command=played,
            on_wait=None if _QUIET.value else commandline.WaitingLine(sys.stderr),
        )
    except (ConfigError, StoreError) as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(2)
    except ClusterError as error:
        sys.stderr.write(f"error: {error}\n")
        sys.exit(1)
    except KeyboardInterrupt as error:
        commandline.exit_stopped(error, "every finished game is in games.csv")
    for note in _notes(result, config):
        sys.stderr.write(note + "\n")
    rebuild = f"{program} --report_only --output {shlex.quote(str(result.output))}"
    said = provenance(_played(GameStore(result.output)), rebuild, rebuilt=False)
    _report(result.output, report_from_directory(result.output, command=said))


def _played(store: GameStore) -> tuple[str, ...]:
    """The commands that played the games: from run.json, else (results from before run.json
    kept them) from the summary.md being replaced."""
    try:
        manifest = store.read_manifest()
    except StoreError:
        manifest = None
    if manifest is not None and manifest.commands:
        return manifest.commands
    return commands_in_summary(store.directory / "summary.md")


def _notes(result: RunResult, config: Config) -> list[str]:
    """What the run did, for stderr."""
    notes = []
    if result.stale_lock is not None:
        notes.append(
            "took over the lock of a run that ended without releasing it "
            f"({result.stale_lock.describe()}: killed?)"
        )
    if result.archived is not None:
        notes.append(f"earlier results moved to {result.archived}")
    if result.manifest_rebuilt:
        kept = (
            f"; the damaged file is kept as {result.damaged_manifest}"
            if result.damaged_manifest is not None
            else ""
        )
        notes.append(
            f"run.json was missing or damaged: rebuilt from {config.source}, whose schedule "
            f"holds every game of games.csv{kept}"
        )
    for (game, bot, opponent), status in result.decided.items():
        notes.append(
            f"SPRT {bot} vs {opponent} on {game}: {status.decision} accepted after {status.pairs} "
            f"pairs ({2 * status.pairs} games), LLR {status.llr:.2f} "
            f"(bounds {status.lower:.2f}, {status.upper:.2f})"
        )
    if result.skipped:
        notes.append(f"{result.skipped} scheduled games not played: their SPRT had decided")
    notes.append(
        f"{result.played} games played in {_clock(result.seconds)} ({result.resumed} already "
        f"done, {result.errors} errors); results in {result.output}"
    )
    return notes


def run() -> None:
    """Entry point of `spiel-bounded-arena` and `scripts/round_robin.py`."""
    # absl's --help prints the docstring of __main__: the script's, or none at all for the
    # installed entry point's wrapper; both print USAGE. It lists the key flags of the
    # program that runs (sys.argv[0]); make them ours.
    sys.modules["__main__"].__doc__ = USAGE
    for flag in flags.FLAGS.get_flags_for_module(__name__):
        flags.FLAGS.register_key_flag_for_module(sys.argv[0], flag)
    # --help exits 0 and a flag that does not parse exits 2 (absl: 1 for both).
    program = _program()
    commandline.run(main, usage=SHORT_USAGE.format(program=program), program=program)


if __name__ == "__main__":
    run()
