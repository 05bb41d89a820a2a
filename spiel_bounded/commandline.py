"""Exit statuses of the package's command-line programs (absl apps).

absl's `app.run` exits with status 1 both after printing `--help` and when a flag does not parse.
Our programs follow the Unix convention the manual states (docs/tournaments.md): 0 after the
help, 2 for a command-line error (the message says what is accepted). `run` is `app.run` with
that flag parsing; everything else (the help text, `app.UsageError` from `main`) is absl's. A
reader that stops reading early (`| head`) ends a program quietly.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, NoReturn, TextIO

from absl import app, flags

from spiel_bounded.params import declared
from spiel_bounded.runs.settings import RunSettings

HELP_FLAGS: Final = frozenset({"help", "helpshort", "helpfull", "helpxml"})
"""absl's flags that print the help (and exit)."""
USAGE_ERROR = 2
"""Exit status of a command line that does not parse (or that `main` refuses as such)."""


def parse_flags(argv: Sequence[str], *, usage: str = "", program: str = "") -> list[str]:
    """Parses `argv` into `absl.flags.FLAGS`, exiting 0 after the help and 2 on a bad flag.

    Args:
        argv: The command line, program name first.
        usage: Printed on stderr above the error message of a bad flag (e.g. a short usage);
            nothing when empty.
        program: How the error message names the program (default: the name in `argv[0]`).

    Returns:
        The arguments left after the flags, program name first (what `main` receives).
    """
    try:
        return flags.FLAGS(list(argv))
    except flags.Error as error:
        program = program or (Path(argv[0]).name if argv else "the program")
        sys.stderr.write(f"{usage}\n" if usage else "")
        sys.stderr.write(f"error: {error}\n({program} --help describes the flags)\n")
        sys.exit(USAGE_ERROR)
    except SystemExit as stop:
        # absl's help flags print the help and then exit with status 1.
        asked = {arg.split("=", 1)[0].lstrip("-") for arg in argv[1:] if arg.startswith("-")}
        if stop.code == 1 and asked & HELP_FLAGS:
            sys.exit(0)
        raise


def run(main: Callable[[list[str]], Any], *, usage: str = "", program: str = "") -> None:
    """`absl.app.run(main)` with `parse_flags`'s exit statuses (and its `usage`, `program`),
    ending quietly when the reader of its output goes away (`reader_gone_ends_quietly`)."""

    def guarded(argv: list[str]) -> Any:
        with reader_gone_ends_quietly():
            return main(argv)

    app.run(guarded, flags_parser=lambda argv: parse_flags(argv, usage=usage, program=program))


def refuse_arguments(argv: Sequence[str]) -> None:
    """`app.UsageError` (exit status 2) when `argv` holds arguments after the program name: the
    commands take flags only."""
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}", exitcode=USAGE_ERROR)


def write_or_print(text: str, output: str | None) -> None:
    """Writes a command's `text` to the file `output`, or prints it when there is none."""
    if output:
        Path(output).write_text(text)
    else:
        print(text, end="")


def integers(name: str, values: Sequence[str]) -> list[int]:
    """A list flag's values as integers; `app.UsageError` (exit status 2) naming the flag for
    anything else."""
    try:
        return [int(value) for value in values]
    except ValueError:
        raise app.UsageError(
            f"--{name} must be integers separated by commas; got {','.join(values)}",
            exitcode=USAGE_ERROR,
        ) from None


@contextmanager
def reader_gone_ends_quietly() -> Iterator[None]:
    """A program whose standard output is closed early (`... | head`) exits with status 0 and
    no traceback: what it had left to print has no reader. Its stdout then points at
    /dev/null, so that the interpreter's last flush finds nothing to fail on."""
    try:
        yield
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)


NATIVE_ERROR_PREFIX = "OpenSpiel exception: "
"""How OpenSpiel's C++ error handler starts the line it prints on stderr before raising
`pyspiel.SpielError` with the same message."""


@contextmanager
def native_errors_said_once() -> Iterator[None]:
    """Holds back what native code writes to stderr (fd 2) while the block runs, then writes it
    out, less the `OpenSpiel exception: MESSAGE` lines whose MESSAGE the block's error quotes.

    OpenSpiel prints every error it raises (a game string it cannot load: a parameter of the
    wrong type, a failed CHECK); our error messages quote it, so it would be said twice. Only
    those lines are dropped: anything else written meanwhile (native or Python) comes out in
    order when the block ends. The block must be short and write no live progress.
    """
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to redirect
        yield
        return
    message = ""
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        except BaseException as error:
            message = str(error)
            raise
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            text = held.read().decode(errors="replace")
            kept = [
                line
                for line in text.splitlines(keepends=True)
                if not (
                    line.startswith(NATIVE_ERROR_PREFIX)
                    and line[len(NATIVE_ERROR_PREFIX) :].strip() in message
                )
            ]
            sys.stderr.write("".join(kept))
            sys.stderr.flush()


class WaitingLine:
    """Shows what a run is waiting for (e.g. `runs.dask_client`'s `on_wait`: no Dask worker is
    connected yet) on a stream: redrawn in place on a terminal, else a line at once and then
    one every `every` seconds."""

    def __init__(self, stream: TextIO, *, every: float = 10.0) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.every = every
        self.last = -float("inf")

    def __call__(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + text)
        else:
            now = time.monotonic()
            if now - self.last < self.every:
                return
            self.last = now
            self.stream.write(text + "\n")
        self.stream.flush()


def exit_stopped(error: KeyboardInterrupt, kept: str) -> NoReturn:
    """Ends a long job stopped by Ctrl-C or SIGTERM (`runs.Terminated`): says what is `kept`
    (e.g. "every finished game is in games.csv") and how to resume, and exits with 128 plus the
    signal's number (130 after Ctrl-C, 143 after SIGTERM)."""
    signum = getattr(error, "signum", signal.SIGINT)
    name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
    sys.stderr.write(f"\nstopped by {name}: {kept}; run the same command again to resume\n")
    sys.exit(128 + signum)


def setting_help(section: str, name: str, settings_type: type) -> str:
    """The help of the flag `--name` that overrides the config's `[section] name`: the key's
    declaration on `settings_type` (its doc and what it accepts)."""
    param = declared(settings_type)[name]
    accepted = getattr(param.check, "accepted", None)
    return f"[{section}] {name}: {param.doc}" + (f" ({accepted})." if accepted else ".")


def define_run_flags() -> dict[str, flags.FlagHolder[Any]]:
    """The `[run]` overrides a long job's script takes (`--output`, `--workers`, `--executor`,
    `--scheduler`; unset: the config's), their help from the section's declarations."""

    def help_of(name: str) -> str:
        return setting_help("run", name, RunSettings)

    return {
        "output": flags.DEFINE_string("output", None, help_of("output")),
        "workers": flags.DEFINE_integer("workers", None, help_of("workers")),
        "executor": flags.DEFINE_string("executor", None, help_of("executor")),
        "scheduler": flags.DEFINE_string("scheduler", None, help_of("scheduler")),
    }
