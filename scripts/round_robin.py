"""Round-robin tournament between registered bots (also installed as `spiel-bounded-arena`).

`--help` prints the usage both share (`spiel_bounded.arena.cli.USAGE`); see the manual,
docs/tournaments.md.
"""

from spiel_bounded.arena.cli import run

if __name__ == "__main__":
    run()
