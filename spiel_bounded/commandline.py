"""Exit statuses of the package's command-line programs (absl apps).

absl's `app.run` exits with status 1 both after printing `--help` and when a flag does not parse.
Our programs follow the Unix convention the README states: 0 after the help, 2 for a
command-line error (the message says what is accepted). `run` is `app.run` with that flag
parsing; everything else (the help text, `app.UsageError` from `main`) is absl's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from absl import app, flags

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
        # absl's --help, --helpshort, --helpfull and --helpxml print the help and then exit
        # with status 1 while the flags are parsed; no other flag exits there.
        if stop.code == 1:
            sys.exit(0)
        raise


def run(main: Callable[[list[str]], Any], *, usage: str = "", program: str = "") -> None:
    """`absl.app.run(main)` with `parse_flags`'s exit statuses (and its `usage`, `program`)."""
    app.run(main, flags_parser=lambda argv: parse_flags(argv, usage=usage, program=program))
