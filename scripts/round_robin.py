"""Round-robin tournament between registered bots (also installed as `spiel-bounded-arena`).

    python scripts/round_robin.py --config configs/quick.toml
    python scripts/round_robin.py --config configs/default.toml --games=connect_four
    python scripts/round_robin.py --report_only --output results/round_robin

Plays every scheduled game that OUTPUT/games.csv does not hold yet (so rerunning resumes), shows
progress on stderr, then writes the report (summary.md, csv tables, PNG plots) and prints it.
`--helpfull` lists every flag; each config field has one. See README.md, "Tournaments".
"""

from spiel_bounded.arena.cli import run

if __name__ == "__main__":
    run()
