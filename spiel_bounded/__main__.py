"""`python -m spiel_bounded` (or `spiel-bounded`): the package's command line.

    python -m spiel_bounded bots                       every bot, what it plays, its parameters
    python -m spiel_bounded bots NAME                  one bot
    python -m spiel_bounded bots --game connect_four   the bots that can play a game

The listing itself is `spiel_bounded.registry.describe_bots`; this module only parses and prints.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import spiel_bounded  # noqa: F401  (registers the synthetic game, which --game may name)
from spiel_bounded.commandline import native_errors_said_once, reader_gone_ends_quietly
from spiel_bounded.registry import describe_bots


def _parsers() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The program's parser and that of its `bots` command."""
    parser = argparse.ArgumentParser(
        prog="python -m spiel_bounded", description="Bounded game-tree search bots for OpenSpiel."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bots = commands.add_parser(
        "bots",
        help="list the registered bots, what they play and their parameters",
        description="Lists the registered bots: what each plays and its parameters with their "
        "defaults. Pass a NAME for one bot, --game for the bots that can play a game.",
    )
    bots.add_argument("name", nargs="?", metavar="NAME", help="one bot (default: all)")
    bots.add_argument(
        "--game", metavar="GAME", help="a game string, e.g. connect_four or 'pig(winscore=50)'"
    )
    return parser, bots


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status (2: a usage error, such as an unknown bot
    or game, with a message on stderr)."""
    parser, bots = _parsers()
    args = parser.parse_args(argv)
    try:
        with native_errors_said_once():  # a bad game string: OpenSpiel's line is quoted once
            text = describe_bots(args.name, game=args.game)
    except ValueError as error:
        bots.error(str(error))  # exits with status 2
    with reader_gone_ends_quietly():
        print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
