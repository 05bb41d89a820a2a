"""Tournament configs: what is accepted, and every error naming the file, the key and the fix."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from spiel_bounded.arena import ConfigError, load_config, make_schedule, parse_config
from spiel_bounded.arena.config import config_from_mapping

TREE = "bounded_random_tree(branching=2,depth=3,seed=1)"

BOTS = """
[[bots]]
label = "ab"
bot = "bounded_ab"
params = { depth = 2 }

[[bots]]
label = "rand"
bot = "random"
"""


def config_text(tournament: str = "", bots: str = BOTS, extra: str = "") -> str:
    body = tournament or 'games = ["tic_tac_toe"]\ngames_per_pairing = 4'
    return f"[tournament]\n{body}\n{extra}\n{bots}"


def test_a_valid_config_is_read_with_defaults(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(config_text(extra='[run]\noutput = "out"\n[report]\nanchor = "rand"'))
    config = load_config(path)
    settings = config.tournament
    assert settings.games == ("tic_tac_toe",)
    assert [entry.label for entry in settings.bots] == ["ab", "rand"]
    assert settings.games_per_pairing == 4
    assert (settings.pairing, settings.seating, settings.opening_moves) == ("all", "rotate", 0)
    assert config.run.output == Path("out")
    assert (config.run.workers, config.run.executor, config.run.scheduler) == (2, "process", None)
    assert (config.report.anchor, config.report.bootstrap) == ("rand", 1000)
    assert config.source == str(path)


def test_overrides_replace_file_values_and_are_named_in_errors() -> None:
    config = parse_config(config_text(), overrides={"games_per_pairing": 6, "workers": None})
    assert config.tournament.games_per_pairing == 6
    assert config.run.workers == 2
    refused = r"^--games_per_pairing \(command line\): must be an integer >= 1"
    with pytest.raises(ConfigError, match=refused):
        parse_config(config_text(), source="t.toml", overrides={"games_per_pairing": 0})
    with pytest.raises(ConfigError, match=r"--gmes: not a config field; accepted: .*games"):
        parse_config(config_text(), overrides={"gmes": ["tic_tac_toe"]})


def test_bots_selection_keeps_listed_labels() -> None:
    text = config_text(bots=BOTS + '[[bots]]\nlabel = "rand2"\nbot = "random"\n')
    config = parse_config(text, bots=["ab", "rand2"])
    assert [entry.label for entry in config.tournament.bots] == ["ab", "rand2"]
    with pytest.raises(ConfigError, match=r"--bots \(command line\): unknown bot\(s\) 'nope'"):
        parse_config(text, bots=["ab", "nope"])


def test_seconds_per_move_goes_to_bots_with_a_seconds_parameter() -> None:
    text = config_text(
        tournament='games = ["tic_tac_toe"]\ngames_per_pairing = 2\nseconds_per_move = 0.25',
        bots=BOTS + '[[bots]]\nlabel = "ab_own"\nbot = "bounded_ab"\nparams = { seconds = 1 }\n',
    )
    settings = parse_config(text).tournament
    ab, rand, own = settings.bots
    assert settings.params_for(ab, "tic_tac_toe", {}) == {"depth": 2, "seconds": 0.25}
    assert settings.params_for(rand, "tic_tac_toe", {}) == {}
    assert settings.params_for(own, "tic_tac_toe", {}) == {"seconds": 1}


def test_per_game_parameters_override() -> None:
    bots = BOTS.replace(
        "params = { depth = 2 }",
        "params = { depth = 2 }\nper_game = { tic_tac_toe = { depth = 3 } }",
    )
    text = config_text(
        tournament=f'games = ["tic_tac_toe", "{TREE}"]\ngames_per_pairing = 2', bots=bots
    )
    settings = parse_config(text).tournament
    assert settings.params_for(settings.bots[0], "tic_tac_toe", {}) == {"depth": 3}
    assert settings.params_for(settings.bots[0], TREE, {}) == {"depth": 2}


def test_fingerprint_follows_the_tournament_not_the_run() -> None:
    base = parse_config(config_text()).tournament.fingerprint()
    other_run = config_text(extra='[run]\nworkers = 1\noutput = "elsewhere"')
    assert parse_config(other_run).tournament.fingerprint() == base
    assert parse_config(config_text(), overrides={"seed": 3}).tournament.fingerprint() != base
    changed = parse_config(config_text(bots=BOTS.replace("depth = 2", "depth = 3")))
    assert changed.tournament.fingerprint() != base


def test_unsupported_bot_is_refused_unless_skipping_is_asked_for() -> None:
    bots = BOTS + '[[bots]]\nlabel = "cmcts"\nbot = "mcts"\n'
    tournament = f'games = ["tic_tac_toe", "{TREE}"]\ngames_per_pairing = 2'
    with pytest.raises(ConfigError) as error:
        parse_config(config_text(tournament=tournament, bots=bots), source="t.toml")
    message = str(error.value)
    assert message.startswith("t.toml: [[bots]] label 'cmcts' (bot 'mcts') cannot play")
    assert "implemented in Python" in message
    assert "skip_unsupported = true" in message
    settings = parse_config(
        config_text(tournament=tournament + "\nskip_unsupported = true", bots=bots)
    ).tournament
    assert [(item.game, item.label) for item in settings.exclusions] == [(TREE, "cmcts")]
    assert [entry.label for entry in settings.lineup(TREE)] == ["ab", "rand"]
    assert [entry.label for entry in settings.lineup("tic_tac_toe")] == ["ab", "rand", "cmcts"]


@pytest.mark.parametrize(
    ("tournament", "bots", "extra", "message"),
    [
        (
            None,
            None,
            "[runn]\nworkers = 1",
            r"t\.toml: unknown section \[runn\]; accepted sections",
        ),
        (
            'games = ["tic_tac_toe"]\ngames_per_pairng = 4',
            None,
            "",
            r"t\.toml: \[tournament\] unknown key 'games_per_pairng'; accepted keys: games, ",
        ),
        (
            'games = ["tic_tac_toe"]\ngames_per_pairing = 0',
            None,
            "",
            r"t\.toml: \[tournament\] games_per_pairing: must be an integer >= 1, got 0",
        ),
        (
            'games = ["tic_tac_toe"]\ngames_per_pairing = -2',
            None,
            "",
            r"\[tournament\] games_per_pairing: must be an integer >= 1, got -2",
        ),
        (
            'games = ["tic_tac_toe"]',
            None,
            "",
            r"\[tournament\] games_per_pairing: is required; accepted: an integer",
        ),
        (
            'games = ["tic_tac_toe"]\ngames_per_pairing = 3',
            None,
            "",
            r"games_per_pairing: must be a multiple of 2 for 'tic_tac_toe' \(its 2 seat",
        ),
        (
            None,
            None,
            "[run]\nworkers = 0",
            r"t\.toml: \[run\] workers: must be an integer >= 1, got 0",
        ),
        (
            None,
            None,
            '[run]\nexecutor = "threads"',
            r"\[run\] executor: must be one of process, dask, inline; got 'threads'",
        ),
        (
            'games = ["tic_tac_toe", "conect_four"]\ngames_per_pairing = 2',
            None,
            "",
            r"t\.toml: \[tournament\] games: entry 1 'conect_four' is not a loadable OpenSpiel",
        ),
        (
            "games = []\ngames_per_pairing = 2",
            None,
            "",
            r"\[tournament\] games: must not be empty",
        ),
        (
            'games = ["tic_tac_toe"]\ngames_per_pairing = 2\nseconds_per_move = 0',
            None,
            "",
            r"\[tournament\] seconds_per_move: must be a number > 0 or None, got 0",
        ),
        (
            'games = ["tic_tac_toe"]\ngames_per_pairing = 2\npairing = "swiss"',
            None,
            "",
            r"\[tournament\] pairing: must be one of all, focus, baseline, tables; got 'swiss'",
        ),
        (
            'games = ["tic_tac_toe"]\ngames_per_pairing = 2\npairing = "focus"',
            None,
            "",
            r"\[tournament\] focus: must list at least one bot for pairing \"focus\"",
        ),
        (
            'games = ["tic_tac_toe"]\ngames_per_pairing = 2\nfocus = ["abc"]',
            None,
            "",
            r"\[tournament\] focus: unknown bot 'abc'; accepted: ab, rand",
        ),
        (
            None,
            BOTS.replace('bot = "random"', 'bot = "alphabeta"'),
            "",
            r"t\.toml: \[\[bots\]\] #2 \(label 'rand'\): bot: unknown bot 'alphabeta'; "
            r"accepted: bounded_ab, ",
        ),
        (
            None,
            BOTS.replace('label = "rand"', 'label = "ab"'),
            "",
            r"\[\[bots\]\] #2 \(label 'ab'\): label 'ab' is used twice",
        ),
        (
            None,
            BOTS.replace('label = "rand"', 'label = "my bot"'),
            "",
            r"\[\[bots\]\] #2: label must be a non-empty string of letters",
        ),
        (
            None,
            BOTS.replace("depth = 2", "depht = 2"),
            "",
            r"\[\[bots\]\] label 'ab': params \(for 'tic_tac_toe'\): unknown parameter\(s\) "
            r"'depht' for bot 'bounded_ab'; valid parameters: epsilon",
        ),
        (
            None,
            BOTS.replace("depth = 2", "depth = 0"),
            "",
            r"params \(for 'tic_tac_toe'\): bad value for parameter 'depth'.*integer >= 1",
        ),
        (
            None,
            BOTS.replace("depth = 2", "seed = 3"),
            "",
            r"\[\[bots\]\] #1 \(label 'ab'\): params: 'seed' is set by the arena",
        ),
        (
            None,
            BOTS.replace("depth = 2 }", "depth = 2 }\nper_game = { connect_four = { depth = 3 } }"),
            "",
            r"per_game: 'connect_four' is not one of the games; accepted: tic_tac_toe",
        ),
        (
            None,
            BOTS.replace("params = { depth = 2 }", 'colour = "red"'),
            "",
            r"\[\[bots\]\] #1 \(label 'ab'\): unknown key 'colour'; accepted keys: label, bot",
        ),
        (None, BOTS.split('[[bots]]\nlabel = "rand"')[0], "", r"only 1 bot\(s\)"),
        (None, None, '[report]\nanchor = "nobody"', r"\[report\] anchor: unknown bot 'nobody'"),
        (None, None, "[tournament\n", r"t\.toml: not valid TOML"),
    ],
)
def test_bad_configs_are_refused_with_a_clear_message(
    tournament: str | None, bots: str | None, extra: str, message: str
) -> None:
    text = config_text(
        tournament=tournament or "", bots=BOTS if bots is None else bots, extra=extra
    )
    with pytest.raises(ConfigError, match=message):
        parse_config(text, source="t.toml")


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml: cannot read the config"):
        load_config(tmp_path / "nope.toml")


def test_games_with_more_players_need_enough_bots_or_a_baseline() -> None:
    three = "bounded_random_tree(branching=2,depth=3,seed=1,players=3)"
    tournament = f'games = ["{three}"]\ngames_per_pairing = 3\nskip_unsupported = true'
    with pytest.raises(
        ConfigError, match=r"has 3 players but only 1 bot\(s\) can play it \(rand\)"
    ):
        parse_config(config_text(tournament=tournament), source="t.toml")
    # bounded_ab is two-player only; with a baseline, random plays against copies of itself.
    text = config_text(
        tournament=tournament + '\npairing = "baseline"\nbaseline = "rand"',
        bots=BOTS + '[[bots]]\nlabel = "pm"\nbot = "python_mcts"\n',
    )
    settings = parse_config(text).tournament
    assert [entry.label for entry in settings.lineup(three)] == ["rand", "pm"]


def test_extra_bots_are_accepted_by_name() -> None:
    from tests.arena_bots import EXTRA_BOTS

    text = config_text(bots=BOTS + '[[bots]]\nlabel = "bad"\nbot = "test_raising"\n')
    with pytest.raises(ConfigError, match="unknown bot 'test_raising'"):
        parse_config(text)
    config = parse_config(text, extra_bots=EXTRA_BOTS)
    assert config.tournament.bots[-1].bot == "test_raising"


def test_bots_selection_drops_focus_and_anchor_bots_left_out() -> None:
    text = config_text(
        tournament='games = ["tic_tac_toe"]\ngames_per_pairing = 2\npairing = "focus"\n'
        'focus = ["ab", "rand2"]',
        bots=BOTS + '[[bots]]\nlabel = "rand2"\nbot = "random"\n',
        extra='[report]\nanchor = "rand"',
    )
    config = parse_config(text, bots=["ab", "rand2"])
    assert config.tournament.focus == ("ab", "rand2")
    assert config.report.anchor is None
    config = parse_config(text, bots=["rand", "rand2"])
    assert config.tournament.focus == ("rand2",)
    assert config.report.anchor == "rand"


def test_bots_selection_drops_the_tables_of_bots_left_out() -> None:
    text = config_text(
        tournament='games = ["tic_tac_toe"]\ngames_per_pairing = 2\npairing = "tables"\n'
        'tables = [["ab", "rand"], ["ab", "rand2"], ["rand", "rand2"]]',
        bots=BOTS + '[[bots]]\nlabel = "rand2"\nbot = "random"\n',
    )
    assert parse_config(text, bots=["ab", "rand2"]).tournament.tables == (("ab", "rand2"),)
    with pytest.raises(ConfigError, match="of the bots kept by --bots"):
        parse_config(text.replace(', ["ab", "rand2"]', ""), bots=["ab", "rand2"])
    with pytest.raises(ConfigError, match=r"unknown bot\(s\) 'nope'"):
        parse_config(text.replace('["rand", "rand2"]', '["rand", "nope"]'), bots=["ab"])


def test_a_bot_that_cannot_be_built_for_a_game_is_refused_naming_label_game_and_error() -> None:
    # Each parameter is valid alone; hex has no heuristic evaluator, so the bot cannot be built.
    tournament = 'games = ["tic_tac_toe", "hex(board_size=5)"]\ngames_per_pairing = 2'
    bots = BOTS.replace("depth = 2", 'depth = 2, evaluator = "heuristic"')
    with pytest.raises(ConfigError) as error:
        parse_config(config_text(tournament=tournament, bots=bots), source="t.toml")
    message = str(error.value)
    assert message.startswith(
        "t.toml: [[bots]] label 'ab' (bot 'bounded_ab') cannot be built for 'hex(board_size=5)'"
    )
    assert "ValueError: no heuristic for hex(board_size=5)" in message
    assert 'per_game = { "hex(board_size=5)" = { ... } }' in message
    fixed = bots.replace(
        '"heuristic" }',
        '"heuristic" }\nper_game = { "hex(board_size=5)" = { evaluator = "zero" } }',
    )
    settings = parse_config(config_text(tournament=tournament, bots=fixed)).tournament
    assert settings.params_for(settings.bots[0], "hex(board_size=5)", {})["evaluator"] == "zero"


def test_pairing_tables_plays_exactly_the_listed_tables() -> None:
    bots = BOTS + '[[bots]]\nlabel = "rand2"\nbot = "random"\n'
    tournament = (
        'games = ["tic_tac_toe"]\ngames_per_pairing = 2\npairing = "tables"\n'
        'tables = [["ab", "rand"], ["rand2", "ab"]]'
    )
    settings = parse_config(config_text(tournament=tournament, bots=bots)).tournament
    assert settings.tables == (("ab", "rand"), ("rand2", "ab"))
    assert {frozenset(match.labels) for match in make_schedule(settings)} == {
        frozenset({"ab", "rand"}),
        frozenset({"rand2", "ab"}),
    }
    assert settings.canonical()["tables"] == [["ab", "rand"], ["rand2", "ab"]]
    plain = parse_config(config_text()).tournament
    assert "tables" not in plain.canonical()  # older runs keep their fingerprint


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ("", 'tables: must list at least one table for pairing "tables"'),
        ('tables = [["ab", "nobody"]]', "unknown bot\\(s\\) 'nobody' in \\['ab', 'nobody'\\]"),
        ('tables = [["ab", "ab"]]', "names a bot twice"),
        ('tables = [["ab", "rand", "ab"]]', "names a bot twice; accepted: different bots, or one"),
        ('tables = [["ab", "rand", "ab2"]]', "unknown bot"),
        ('tables = [["ab"]]', "has 1 bot\\(s\\) but 'tic_tac_toe' has 2 players"),
        ('tables = ["ab", "rand"]', "must be a list of lists of bot labels"),
    ],
)
def test_pairing_tables_refuses_bad_tables(tables: str, message: str) -> None:
    tournament = f'games = ["tic_tac_toe"]\ngames_per_pairing = 2\npairing = "tables"\n{tables}'
    with pytest.raises(ConfigError, match=message):
        parse_config(config_text(tournament=tournament))


def test_a_config_built_in_code_is_validated_as_a_file_is() -> None:
    text = config_text(extra='[run]\noutput = "out"')
    from_file = parse_config(text)
    raw = tomllib.loads(text)
    built = config_from_mapping(raw, source="a training match")
    assert built.tournament.fingerprint() == from_file.tournament.fingerprint()
    assert built.run == from_file.run
    assert json.loads(built.text) == raw
    raw["tournament"]["pairing"] = "everyone"
    with pytest.raises(ConfigError, match=r"a training match: \[tournament\] pairing: must be"):
        config_from_mapping(raw, source="a training match")
