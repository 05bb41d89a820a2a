"""What a game is to a search: players, value range, chance, and the checks that reject a game.

Every check raises `ValueError` naming the game and what the algorithm does not support, so that
a user who points a bot at the wrong game learns why at construction time, not mid-match.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Final

import pyspiel

_Type = pyspiel.GameType


@dataclass(frozen=True, kw_only=True)
class GameInfo:
    """The facts about a game that decide which searches can play it.

    Attributes:
        name: The game's short name (`game.get_type().short_name`).
        description: The full game string, parameters included, for messages.
        num_players: Number of players.
        min_utility: Smallest return any player can get.
        max_utility: Largest return any player can get.
        has_chance: True when the game has explicit chance nodes.
        perfect_information: True for perfect-information games.
        sequential: True for turn-based games (one player acts at a time).
        zero_sum: True when the returns always sum to zero.
        python_game: True when the game is implemented in Python (registered from Python, like
            `bounded_random_tree`) rather than in OpenSpiel's C++ core.
        terminal_rewards: True when rewards come only at the end of the game (OpenSpiel's
            `RewardModel.TERMINAL`); False for games like 2048 that reward along the way.
        integer_actions: False when the game takes action structs only (crossword), which no
            bot here can play.
    """

    name: str
    description: str
    num_players: int
    min_utility: float
    max_utility: float
    has_chance: bool
    perfect_information: bool
    sequential: bool
    zero_sum: bool
    python_game: bool
    terminal_rewards: bool
    integer_actions: bool

    @property
    def value_range(self) -> float:
        return self.max_utility - self.min_utility


def game_info(game: pyspiel.Game) -> GameInfo:
    """Reads the `GameInfo` of a loaded OpenSpiel game."""
    game_type = game.get_type()
    return GameInfo(
        name=game_type.short_name,
        description=game_description(game),
        num_players=game.num_players(),
        min_utility=float(game.min_utility()),
        max_utility=float(game.max_utility()),
        has_chance=game_type.chance_mode != _Type.ChanceMode.DETERMINISTIC,
        perfect_information=game_type.information == _Type.Information.PERFECT_INFORMATION,
        sequential=game_type.dynamics == _Type.Dynamics.SEQUENTIAL,
        zero_sum=game_type.utility == _Type.Utility.ZERO_SUM,
        python_game=not type(game).__module__.startswith("pyspiel"),
        terminal_rewards=game_type.reward_model == _Type.RewardModel.TERMINAL,
        integer_actions=not game_type.action_structs_only,
    )


def game_description(game: pyspiel.Game) -> str:
    """The game string for messages and tables: `backgammon`, not `backgammon()`."""
    text = str(game)
    return text[:-2] if text.endswith("()") else text


def game_key(game: pyspiel.Game) -> tuple[str, dict[str, Any]]:
    """What makes two loaded games the same game: the short name and every parameter, defaults
    included (so `pig` and `pig(winscore=100)` are one game, `pig(winscore=30)` another)."""
    return game.get_type().short_name, dict(game.get_parameters())


def load_game(game: pyspiel.Game | str) -> pyspiel.Game:
    """Returns `game` loaded, or raises `ValueError` saying what is wrong with the string.

    An unknown game or parameter name is caught before OpenSpiel sees it (OpenSpiel would print
    its whole list of games to stderr) and answered with the closest registered names.

    Raises:
        ValueError: Not a string or game; an unknown game or parameter; a value OpenSpiel
            refuses (the message carries OpenSpiel's first line).
    """
    if isinstance(game, pyspiel.Game):
        return game
    if not isinstance(game, str):
        raise ValueError(f"game must be a pyspiel.Game or a game string, got {game!r}")
    name = game.split("(", 1)[0].strip()
    game_types = {game_type.short_name: game_type for game_type in pyspiel.registered_games()}
    if name not in game_types:
        where = "" if name == game else f" in {game!r}"
        raise ValueError(
            f"unknown game {name!r}{where}{_suggest(name, game_types)}; "
            f"pyspiel.registered_names() lists all {len(game_types)} games"
        )
    accepted = game_types[name].parameter_specification
    if "(" in game:
        params = _parameters(game)
        unknown = sorted(set(params) - {"name"} - set(accepted))
        if unknown:
            raise ValueError(
                f"unknown parameter {unknown[0]!r} of game {name!r} in {game!r}"
                f"{_suggest(unknown[0], accepted)}; accepted parameters: "
                f"{', '.join(sorted(accepted)) or 'none'}"
            )
    try:
        return pyspiel.load_game(game)
    except pyspiel.SpielError as error:
        raise ValueError(f"cannot load game {game!r}: {_first_line(error)}") from None


def _parameters(game: str) -> dict[str, object]:
    try:
        return dict(pyspiel.game_parameters_from_string(game))
    except pyspiel.SpielError as error:
        raise ValueError(
            f"malformed game string {game!r}: {_first_line(error)}; accepted: a name with "
            "optional parameters, e.g. 'connect_four' or 'go(board_size=9,komi=7.5)'"
        ) from None


def _suggest(name: str, known: object) -> str:
    close = difflib.get_close_matches(name, list(known), n=3)  # type: ignore[call-overload]
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else "OpenSpiel gave no reason"


@dataclass(frozen=True, kw_only=True)
class Requirements:
    """The games an algorithm can play, stated once for its search and its registered bot.

    Attributes:
        players: Inclusive (min, max) player counts; max None is unbounded.
        chance: Chance nodes are handled.
        zero_sum: Only zero-sum games are handled.
        python_games: Games implemented in Python are handled (OpenSpiel's C++ MCTSBot crashes
            when stepped from Python on them).
        imperfect_information: Imperfect-information games are handled.
        intermediate_rewards: Games that reward before the end are handled (OpenSpiel's MCTS
            bots refuse them).
    """

    players: tuple[int, int | None] = (2, 2)
    chance: bool = False
    zero_sum: bool = True
    python_games: bool = True
    imperfect_information: bool = False
    intermediate_rewards: bool = True


TWO_PLAYER_ZERO_SUM: Final = Requirements()
"""Two-player zero-sum deterministic perfect-information games (alpha-beta)."""
TWO_PLAYER_ZERO_SUM_CHANCE: Final = Requirements(chance=True)
"""The same with chance nodes (Star-1, Star-2, BABMCTS)."""

UNDO_EXACT_GAMES: Final = frozenset(
    {"amazons", "banqi", "breakthrough", "chinese_checkers", "maedn", "nim", "tic_tac_toe"}
)
"""Games whose `undo_action` restores every observable of the state (string, history, player,
legal moves, returns, chance outcomes, observation; `tests/test_games.py`) and is faster than
`child()` (amazons 1.4x, banqi 1.7x, nim 1.3x, breakthrough 1.2x per child made), so that
searches make children by `apply_action` / `undo_action` instead. Not listed:
connect_four, hex and othello do not implement undo in OpenSpiel 2.0.2; in backgammon undoing a
roll leaves the wrong chance outcomes, in clobber the move number; in chess, antichess, mnk,
shogi and xiangqi undo is no faster than `child()` (within 10%), and slower in crazyhouse
(0.92x) and go (0.24x: it replays the game)."""


def describe_requirements(requirements: Requirements) -> str:
    """The games these requirements admit, in words (for listings: `registry.describe_bots`)."""
    low, high = requirements.players
    if high is None:
        players = f"{low} or more players"
    elif low == high:
        players = f"{low} players"
    else:
        players = f"{low} to {high} players"
    parts = [f"turn-based games with {players}"]
    if requirements.zero_sum:
        parts.append("zero-sum")
    parts.append("with or without chance" if requirements.chance else "no chance nodes")
    parts.append(
        "perfect or imperfect information"
        if requirements.imperfect_information
        else "perfect information"
    )
    if not requirements.intermediate_rewards:
        parts.append("rewards only at the end")
    if not requirements.python_games:
        parts.append("games implemented in C++ only")
    return ", ".join(parts)


def unsupported_reasons(info: GameInfo, requirements: Requirements) -> list[str]:
    """Lists why an algorithm with these requirements cannot play the game (empty: it can)."""
    reasons = []
    low, high = requirements.players
    if info.num_players < low or (high is not None and info.num_players > high):
        wanted = f"{low}" if low == high else f"{low}..{high if high is not None else 'n'}"
        reasons.append(f"it has {info.num_players} players (supported: {wanted})")
    if not info.integer_actions:
        reasons.append("its actions are structs, not integers, which no bot here can play")
    if info.has_chance and not requirements.chance:
        reasons.append("it has chance nodes")
    if not info.perfect_information and not requirements.imperfect_information:
        reasons.append("it has imperfect information")
    if not info.sequential:
        reasons.append("it has simultaneous moves")
    if requirements.zero_sum and not info.zero_sum:
        reasons.append("it is not zero-sum")
    if info.python_game and not requirements.python_games:
        reasons.append("it is implemented in Python, which this C++ bot cannot search")
    if info.name == "quoridor" and info.num_players > 2:
        reasons.append(
            "quoridor with more than 2 players is broken in OpenSpiel 2.0.2 (returns go to the "
            "wrong player in over half the decided games, and about 1% of random games crash)"
        )
    if not info.terminal_rewards and not requirements.intermediate_rewards:
        reasons.append("it gives rewards before the end of the game (MCTS needs terminal rewards)")
    return reasons


def require(
    game: pyspiel.Game, algorithm: str, requirements: Requirements, *, hint: str = ""
) -> GameInfo:
    """Returns the game's info, or raises `ValueError` naming the game and what is unsupported.

    `hint` is appended to the message (e.g. which algorithm to use instead).
    """
    info = game_info(game)
    reasons = unsupported_reasons(info, requirements)
    if reasons:
        raise ValueError(f"{algorithm} cannot play {info.description}: {'; '.join(reasons)}{hint}")
    return info


def require_decision_state(
    state: pyspiel.State, algorithm: str, requirements: Requirements, *, hint: str = ""
) -> GameInfo:
    """`require` for the state's game, and `ValueError` unless `state` is a decision node (a
    search starts from a player's move, not a terminal or a chance node)."""
    info = require(state.get_game(), algorithm, requirements, hint=hint)
    if state.is_terminal() or state.is_chance_node():
        raise ValueError(f"{algorithm} needs a decision state of {info.description}, got:\n{state}")
    return info


def check_epsilon(epsilon: float, info: GameInfo, algorithm: str) -> None:
    """`ValueError` unless `0 <= epsilon < info.value_range`.

    A tolerance as wide as the game's value range is met before anything is searched (the
    interval `[min_utility, max_utility]` already fits in it) and says nothing about any move,
    so every bounded search refuses it rather than report a proof it did not make.
    """
    if not 0.0 <= epsilon < info.value_range:
        raise ValueError(
            f"{algorithm}: epsilon={epsilon:g} is not below the value range of "
            f"{info.description} ({info.value_range:g}: utilities {info.min_utility:g} to "
            f"{info.max_utility:g}); a tolerance that wide proves nothing about any move. "
            f"Accepted: 0 <= epsilon < {info.value_range:g} (absolute, in the game's utility units)"
        )
