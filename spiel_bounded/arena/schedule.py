"""The schedule: which bots meet at which table, in which seats, with which seed.

A *table* is a set of bots that play each other in one game (two bots in a two-player game). Every
table is played `games_per_pairing` times: in blocks ("rounds") of its seatings, so every bot
takes every seat equally often, and all seatings of a round share one seed, hence one random
opening and one stream of chance outcomes; no bot gains from the seat it happens to get.

Seeds are a hash of the base seed and the game's identity (game, table, round), not of its
position in the schedule, so a game keeps its seed when other games or bots are added, and can
be replayed exactly from its record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Any, Final

from spiel_bounded import registry
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.settings import BotFactory, TournamentSettings
from spiel_bounded.games import load_game
from spiel_bounded.runs.former_settings import before_engines

SEED_BITS = 31  # seeds stay below 2**31: C++ bots take them as a signed int


@dataclass(frozen=True, kw_only=True)
class SeatBot:
    """The bot in one seat of one game.

    Attributes:
        label: Its label in the config.
        bot: Registry name (or extra-bot name).
        params: Parameters it is built with (the per-game seed is added when it is built).
        params_hash: Short hash of the bot name and its full parameters, defaults filled in.
        factory: Builder for a bot outside the registry, else None.
        former_hashes: Hashes that games of this bot played before a parameter was removed
            from it carry (`REMOVED_PARAMETERS`): the same bot, so their records still count.
    """

    label: str
    bot: str
    params: Mapping[str, Any]
    params_hash: str
    factory: BotFactory | None = None
    former_hashes: tuple[str, ...] = ()

    def played(self, stored_hash: str) -> bool:
        """Whether a record's parameter hash for this seat is this bot's, now or before a
        parameter was removed from it."""
        return stored_hash == self.params_hash or stored_hash in self.former_hashes


@dataclass(frozen=True, kw_only=True)
class Match:
    """One scheduled game.

    Attributes:
        game_id: Unique, stable key of the game: `game|labels in seat order|round`.
        game: OpenSpiel game string.
        table: Labels of the bots at the table, in config order (the pairing).
        round: Repetition of the table (all seatings of a round share the seed).
        seats: The bot in each seat, seat 0 first.
        seed: The game's seed: chance outcomes, random opening and every bot's seed derive
            from it.
        opening_moves: Uniformly random plies the arena plays before the bots move.
        opening: The actions the arena plays before the bots move (an opening suite's line;
            empty: none).
    """

    game_id: str
    game: str
    table: tuple[str, ...]
    round: int
    seats: tuple[SeatBot, ...]
    seed: int
    opening_moves: int
    opening: tuple[int, ...] = ()

    @property
    def opening_plies(self) -> int:
        """Plies the arena plays before the bots move."""
        return len(self.opening) or self.opening_moves

    @property
    def labels(self) -> tuple[str, ...]:
        """Labels in seat order."""
        return tuple(seat.label for seat in self.seats)


def seatings(num_players: int, table: Sequence[str], seating: str) -> list[tuple[str, ...]]:
    """The seat orders a table is played in; each bot takes each seat equally often.

    "rotate" gives the `num_players` cyclic rotations; "permute" every distinct order (n! for n
    distinct bots, fewer when a table holds copies of one bot).
    """
    if seating == "rotate":
        return [
            tuple(table[(seat + shift) % num_players] for seat in range(num_players))
            for shift in range(num_players)
        ]
    return sorted(set(permutations(table)))


def tables(settings: TournamentSettings, game: str, num_players: int) -> list[tuple[str, ...]]:
    """The tables of `game` under the settings' pairing mode, labels in config order."""
    lineup = [entry.label for entry in settings.lineup(game)]
    if settings.pairing == "baseline":
        baseline = settings.baseline
        assert baseline is not None
        return [(label, *([baseline] * (num_players - 1))) for label in lineup if label != baseline]
    if settings.pairing == "tables":
        return [table for table in settings.tables if set(table) <= set(lineup)]
    every = list(combinations(lineup, num_players))
    if settings.pairing == "focus":
        focus = set(settings.focus)
        return [table for table in every if focus & set(table)]
    return every


def derive_seed(*parts: object) -> int:
    """A seed below 2**31 that is a stable hash of `parts` (independent of Python's hash)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of the bot in `seat` of a game."""
    return derive_seed(game_seed, "seat", seat)


def params_hash(bot: str, params: Mapping[str, Any]) -> str:
    """Short hash of a bot name and its full parameters."""
    text = json.dumps({"bot": bot, "params": dict(params)}, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:10]


REMOVED_PARAMETERS: Final[Mapping[str, Mapping[str, Any]]] = {
    # Issue 24: `reference_engine` chose a readable copy of the same search (the same moves,
    # bounds and counts, checked on the equivalence grid); that copy became the test oracle
    # `tests/alphabeta_reference.py`. Every bot on the alpha-beta engine had it, default False.
    "bounded_ab": {"reference_engine": False},
    "bounded_star1": {"reference_engine": False},
    "bounded_star2": {"reference_engine": False},
    "paranoid": {"reference_engine": False},
}
"""Parameters removed from a registry bot without changing how it plays, with the default each
had: a record whose parameter hash covers them at that default is a game of the bot as it is now.

The migration for committed tournament directories: a parameter hash covers every parameter
with the defaults filled in, so removing a parameter changes the hash of every game played
before. `former_hashes` recomputes the hash those games carry (today's parameters plus the
removed ones at their old defaults), and the schedule accepts both, so such a directory resumes
and reports as before; new games carry the new hash. A game played with a removed parameter
away from its default (e.g. `reference_engine = true`) is not accepted: that bot no longer
exists. Only a removal that leaves play unchanged belongs here."""


def former_hashes(bot: str, full: Mapping[str, Any]) -> tuple[str, ...]:
    """The parameter hashes games of `bot` with today's full parameters `full` carried before
    `REMOVED_PARAMETERS[bot]` were removed and before the alpha-beta bots gained `engine` (none
    when neither applies)."""
    forms = [dict(full)]
    before = before_engines(bot, full)
    if before is not None:
        forms.append(before)
    removed = REMOVED_PARAMETERS.get(bot)
    if removed and not set(removed) & set(full):
        forms += [{**form, **removed} for form in forms if "engine" not in form]
    return tuple(params_hash(bot, form) for form in forms[1:])


def make_schedule(
    settings: TournamentSettings, extra_bots: Mapping[str, BotFactory] | None = None
) -> tuple[Match, ...]:
    """Every game of the tournament, round by round (so a partial run is balanced).

    Args:
        settings: Validated tournament settings.
        extra_bots: Factories of bots outside the registry, by name.
    """
    extra = dict(extra_bots or {})
    num_players = {game: load_game(game).num_players() for game in settings.games}
    seat_bots: dict[tuple[str, str], SeatBot] = {}
    for game in settings.games:
        for entry in settings.lineup(game):
            params = settings.params_for(entry, game, extra)
            if entry.bot in extra:
                full = dict(params)
                former: tuple[str, ...] = ()
            else:
                full = registry.check_params(registry.get_spec(entry.bot), {**params, "seed": 0})
                del full["seed"]
                former = former_hashes(entry.bot, full)
            seat_bots[game, entry.label] = SeatBot(
                label=entry.label,
                bot=entry.bot,
                params=params,
                params_hash=params_hash(entry.bot, full),
                factory=extra.get(entry.bot),
                former_hashes=former,
            )
    plan = []
    for game in settings.games:
        players = num_players[game]
        for table in tables(settings, game, players):
            orders = seatings(players, table, settings.seating)
            plan.append((game, table, orders))
    matches = []
    most_rounds = max(settings.games_per_pairing // len(orders) for _, _, orders in plan)
    for round_ in range(most_rounds):
        for game, table, orders in plan:
            if round_ >= settings.games_per_pairing // len(orders):
                continue
            seed = derive_seed(settings.seed, game, ",".join(table), round_)
            for order in orders:
                matches.append(
                    Match(
                        game_id=f"{game}|{','.join(order)}|{round_}",
                        game=game,
                        table=table,
                        round=round_,
                        seats=tuple(seat_bots[game, label] for label in order),
                        seed=seed,
                        opening_moves=settings.random_plies(game),
                        opening=settings.opening(game, round_),
                    )
                )
    return tuple(matches)


PARAMETERS_CHANGED: Final = (
    "a parameter hash covers every parameter of the bot, its defaults filled in, so a default "
    "that changed since the games were played (or a parameter the bot gained) changes it too"
)
"""Why a record's parameter hashes can differ from a config's that has not changed."""


def unscheduled(records: Sequence[GameRecord], schedule: Sequence[Match]) -> list[str]:
    """What makes records differ from the games of `schedule`, one line per record that does.

    A record belongs to the schedule when a scheduled game has its id and the same seed, bots,
    registry names and parameter hashes: then the schedule's config is the one that played it.
    A line names the seats whose parameters differ, e.g. `tic_tac_toe|a,b|0: other parameters
    for a (bounded_ab: 246de34ccc in games.csv, a1112096eb now)`.
    """
    by_id = {match.game_id: match for match in schedule}
    problems = []
    for record in records:
        match = by_id.get(record.game_id)
        if match is None:
            problems.append(f"{record.game_id}: not in the schedule")
            continue
        differences = []
        if record.seed != match.seed:
            differences.append("another seed")
        if record.bots != tuple(seat.bot for seat in match.seats):
            differences.append("other bots")
        elif not _same_parameters(record, match):
            seats = [
                f"{seat.label} ({seat.bot}: {stored} in games.csv, {seat.params_hash} now)"
                for seat, stored in zip(match.seats, record.params_hashes, strict=False)
                if not seat.played(stored)
            ]
            differences.append(f"other parameters for {', '.join(dict.fromkeys(seats))}")
        if differences:
            problems.append(f"{record.game_id}: {'; '.join(differences)}")
    return problems


def changed_parameters(records: Sequence[GameRecord], schedule: Sequence[Match]) -> list[str]:
    """The labels whose parameter hashes in `records` differ from the schedule's, in schedule
    order (games the schedule does not hold are ignored)."""
    by_id = {match.game_id: match for match in schedule}
    changed: dict[str, None] = {}
    for record in records:
        match = by_id.get(record.game_id)
        if match is None or record.bots != tuple(seat.bot for seat in match.seats):
            continue
        for seat, stored in zip(match.seats, record.params_hashes, strict=False):
            if not seat.played(stored):
                changed[seat.label] = None
    order = {label: index for index, label in enumerate(_labels(schedule))}
    return sorted(changed, key=lambda label: order.get(label, len(order)))


def mismatch(records: Sequence[GameRecord], schedule: Sequence[Match], source: str) -> str | None:
    """None when every record is a game of `schedule` (from the config `source`); else what is
    wrong, to follow a path: "holds 2 game(s) that SOURCE does not schedule (e.g. ...)", naming
    the bots whose parameters changed and why that happens."""
    problems = unscheduled(records, schedule)
    if not problems:
        return None
    text = f"holds {len(problems)} game(s) that {source} does not schedule (e.g. {problems[0]})"
    changed = changed_parameters(records, schedule)
    if changed:
        text += f"; parameters changed for {', '.join(changed)}: {PARAMETERS_CHANGED}"
    return text


def _same_parameters(record: GameRecord, match: Match) -> bool:
    """Whether every seat's stored parameter hash is its bot's (`SeatBot.played`)."""
    return len(record.params_hashes) == len(match.seats) and all(
        seat.played(stored) for seat, stored in zip(match.seats, record.params_hashes, strict=True)
    )


def _labels(schedule: Sequence[Match]) -> list[str]:
    return list(dict.fromkeys(label for match in schedule for label in match.table))
