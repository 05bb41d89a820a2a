"""Opening suites: files of action sequences, one opening a line, played in every seating.

The cutechess habit: rather than random opening plies, a tournament draws its openings from a
fixed suite (`[tournament] openings = "FILE"`); round r of every table plays line r (modulo the
suite's length), in every seating of the table, so each bot plays each opening from both
sides. A line is the opening's actions as integers separated by spaces (the `actions` column of
games.csv); `#` starts a comment, blank lines are skipped. Games with chance nodes take no
suite: their openings would depend on the dice.

`balanced_openings` makes a suite: of distinct random openings (`random_openings`), those whose
value by a bounded alpha-beta search is close to a draw, so that neither seat starts ahead.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyspiel

Opening = tuple[int, ...]


class OpeningError(ValueError):
    """An opening suite that cannot be played: the message names the file, line and why."""


def parse_openings(text: str, source: str) -> tuple[Opening, ...]:
    """The openings of a suite's text (`source` names it in errors)."""
    openings = []
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            openings.append(tuple(int(token) for token in body.split()))
        except ValueError:
            raise OpeningError(
                f"{source}, line {number}: {body!r} is not a list of integer actions separated "
                "by spaces"
            ) from None
    if not openings:
        raise OpeningError(f"{source} holds no opening (one line of integer actions each)")
    return tuple(openings)


def read_openings(path: str | Path) -> tuple[Opening, ...]:
    """The openings of a suite file."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise OpeningError(f"cannot read the opening suite {str(path)!r}: {error}") from None
    return parse_openings(text, str(path))


def suite_digest(openings: Sequence[Opening]) -> str:
    """A hash of the suite's openings (what a tournament's fingerprint keeps of it)."""
    text = "\n".join(" ".join(map(str, line)) for line in openings)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def play_opening(game: pyspiel.Game, opening: Opening) -> tuple[pyspiel.State, str | None]:
    """The state after `opening`, and why it cannot be played (None when it can): an illegal
    action, or a game that ends within it."""
    state = game.new_initial_state()
    for ply, action in enumerate(opening):
        if state.is_terminal():
            return state, f"the game is over before ply {ply}"
        if action not in state.legal_actions():
            return state, f"action {action} at ply {ply} is not legal"
        state.apply_action(action)
    if state.is_terminal():
        return state, "the game is over after it"
    return state, None


def check_openings(game: pyspiel.Game, openings: Sequence[Opening], source: str) -> None:
    """`OpeningError` naming the first opening (counted from 1, comments and blank lines
    skipped) that `game` cannot play, or a game with chance nodes (whose openings would depend
    on the dice: refused)."""
    if game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        raise OpeningError(
            f"{source}: opening suites are for games without chance nodes; {game} has them "
            "(use opening_moves, whose plies follow each game's chance outcomes)"
        )
    for index, opening in enumerate(openings):
        _, problem = play_opening(game, opening)
        if problem is not None:
            raise OpeningError(
                f"{source}: opening {index + 1} ({' '.join(map(str, opening))}) cannot be "
                f"played in {game}: {problem}"
            )


@dataclass(frozen=True)
class ScoredOpening:
    """A candidate opening, the value a search gave it for player 0, and (when played out)
    player 0's return in a game from it between equal bots."""

    opening: Opening
    value: float
    outcome: float | None = None


def random_openings(
    game: pyspiel.Game, *, plies: int, candidates: int, rng: np.random.Generator
) -> list[Opening]:
    """The distinct openings among `candidates` draws of `plies` uniformly random moves
    (deterministic games), in the order drawn; a draw that ends the game is dropped."""
    drawn: dict[Opening, None] = {}
    for _ in range(candidates):
        state = game.new_initial_state()
        actions: list[int] = []
        while len(actions) < plies and not state.is_terminal():
            action = int(rng.choice(state.legal_actions()))
            actions.append(action)
            state.apply_action(action)
        if not state.is_terminal():
            drawn.setdefault(tuple(actions), None)
    return list(drawn)


def balanced_openings(
    game: pyspiel.Game,
    openings: Sequence[Opening],
    *,
    count: int,
    value_of: Callable[[pyspiel.State], float],
    margin: float,
    outcome_of: Callable[[pyspiel.State], float] | None = None,
) -> list[ScoredOpening]:
    """Up to `count` of `openings` (`random_openings`, say) whose `value_of` (player 0's value
    of the position after them) is within `margin` of the middle of the game's range.

    Without `outcome_of`: the most balanced by value first. With it (player 0's return of a
    game played out from the position, e.g. by two copies of one deterministic search), a
    search value near a draw is not trusted alone: the suite takes the openings whose game was
    drawn, then equally many won by each seat, so that equal bots score 50% from either seat
    over the suite; each group is taken most balanced by value first, and only the `count`
    openings closest to the margin's middle are played out (`4 * count` at most)."""
    middle = 0.5 * (game.min_utility() + game.max_utility())
    scored = []
    for opening in openings:
        value = value_of(play_opening(game, opening)[0])
        if abs(value - middle) <= margin:
            scored.append(ScoredOpening(opening, value))
    scored.sort(key=lambda item: (abs(item.value - middle), item.opening))
    if outcome_of is None:
        return scored[:count]
    played = [
        ScoredOpening(item.opening, item.value, outcome_of(play_opening(game, item.opening)[0]))
        for item in scored[: 4 * count]
    ]
    draws = [item for item in played if item.outcome == middle]
    first = [item for item in played if item.outcome is not None and item.outcome > middle]
    second = [item for item in played if item.outcome is not None and item.outcome < middle]
    taken = min(len(draws), count)
    if (count - taken) % 2 and taken:
        taken -= 1  # the rest come in pairs: one draw fewer fills the suite exactly
    suite = draws[:taken]
    pairs = min(len(first), len(second), (count - taken) // 2)
    for won, lost in zip(first[:pairs], second[:pairs], strict=True):
        suite += [won, lost]
    return suite
