"""Transposition keys: a hashable value that identifies a game state, chosen per game.

A transposition table may share an entry between two states only when they are the same state:
same player to move, same legal moves, same future. `(current_player(), str(state))` is that in
many games, but some games' strings omit part of the state, and there two different states share
a string. What each game's string omits was read from OpenSpiel 2.0.2's C++ sources (the
`ToString` of each state class against its members) and confirmed by playing the two states of a
collision on with the same moves until their futures part (`tests/test_keys.py`):

- amazons: a turn is three actions (pick a queen, move it, shoot); the string shows the board
  only, not the phase nor the square of the queen that was picked or moved.
- checkers: the 40-move no-capture counter (a draw when it runs out) and the piece that must go
  on jumping after a capture.
- quoridor, xiangqi: the move counter that ends the game in a draw.
- pig: the counter of decisions that ends the game at `horizon`.
- chess, antichess, crazyhouse, shogi: the repetition history (threefold / fourfold repetition
  ends the game); FEN's move counters are in the string, the positions seen before are not.
- go, cursor_go: the superko history, the ko point, whether the last move was a pass (two passes
  end the game); cursor_go also the cursor moves.
- lines_of_action, oware: the boards seen before (a repeated board ends the game).
- chinese_checkers: the turn counter and the cells an ongoing hop chain visited.
- backgammon: the turn counter (the game ends after `max_player_turns`).
- banqi: the no-progress counter and, at a chance node, which square is being turned over.
- einstein_wurfelt_nicht: the die roll the player must move with, who rolls next.
- maedn: at a chance node, who rolls next (a six gives the same player another roll).
- yacht: at a chance node, which dice are rerolled.

Keys (`KeyRule.kind`):

- `string`: `(current_player(), str(state))`. The player is part of the key because some strings
  do not name the player to move (breakthrough prints only the board).
- `string_move`: `(current_player(), move_number(), str(state))`, for a string that omits only a
  move counter.
- `amazons`, `checkers`, `pig`, `chance_count`: the string plus exactly what it omits, read from
  the history (see each function and class).
- `history`: the history of actions (chance outcomes included). It identifies the state in every
  game, but two move orders never share a key: the table then has no transpositions and serves
  only iterative deepening and move ordering (the same node searched again). This is the key of
  every game without a transposition-safe key from the Python API, and of every game not listed
  in `KEY_RULES` (a game nobody has audited).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Final

import pyspiel

KeyFunction = Callable[[pyspiel.State], Hashable]

KEY_KINDS: Final = (
    "string",
    "string_move",
    "amazons",
    "checkers",
    "pig",
    "chance_count",
    "history",
)

_CHECKERS_NO_CAPTURE_LIMIT: Final = 40  # kMaxMovesWithoutCapture in checkers.h
_PIG_ROLL: Final = 0  # kRoll in pig.h; kStop is 1


@dataclass(frozen=True, kw_only=True)
class KeyRule:
    """How one game's transposition key is built.

    Attributes:
        kind: One of `KEY_KINDS`.
        omits: What `str(state)` omits that the key adds (empty when the string is the state).
    """

    kind: str
    omits: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KEY_KINDS:
            raise ValueError(f"unknown key kind {self.kind!r}; accepted: {', '.join(KEY_KINDS)}")

    @property
    def transposes(self) -> bool:
        """Whether different move orders can share a key."""
        return self.kind != "history"


_STRING = KeyRule(kind="string")
_UNAUDITED = KeyRule(kind="history", omits="not audited: the history is the safe key")

KEY_RULES: Final[Mapping[str, KeyRule]] = {
    # The string is the whole state (audited against the C++ state members).
    **{
        name: _STRING
        for name in (
            "bounded_random_tree",
            "breakthrough",
            "clobber",
            "connect_four",
            "dots_and_boxes",
            "gomoku",
            "havannah",
            "hex",
            "hive",
            "mancala",
            "mnk",
            "nim",
            "nine_mens_morris",
            "othello",
            "pentago",
            "tic_tac_toe",
            "twixt",
            "ultimate_tic_tac_toe",
            "y",
        )
    },
    "quoridor": KeyRule(kind="string_move", omits="the move counter (a draw at the move limit)"),
    "xiangqi": KeyRule(kind="string_move", omits="the move counter (a draw at 500 moves)"),
    "amazons": KeyRule(
        kind="amazons", omits="the phase of the turn and the square of the picked or moved queen"
    ),
    "checkers": KeyRule(
        kind="checkers",
        omits="the 40-move no-capture counter and the piece that must go on jumping",
    ),
    "pig": KeyRule(kind="pig", omits="the decision counter that ends the game at `horizon`"),
    **{
        name: KeyRule(kind="history", omits="the repetition history (repetition ends the game)")
        for name in ("chess", "antichess", "crazyhouse", "shogi", "lines_of_action", "oware")
    },
    **{
        name: KeyRule(
            kind="history",
            omits="the superko history, the ko point and a pending pass (two passes end the game)",
        )
        for name in ("go", "cursor_go")
    },
    "chinese_checkers": KeyRule(
        kind="history", omits="the turn counter and the cells of an ongoing hop chain"
    ),
    "backgammon": KeyRule(
        kind="chance_count", omits="the turn counter (the game ends after max_player_turns)"
    ),
    "banqi": KeyRule(
        kind="history", omits="the no-progress counter and the square being turned over"
    ),
    "einstein_wurfelt_nicht": KeyRule(
        kind="history", omits="the die roll to move with and who rolls next"
    ),
    "maedn": KeyRule(kind="history", omits="who rolls next at a chance node"),
    "yacht": KeyRule(kind="history", omits="which dice are rerolled at a chance node"),
}
"""The key of every game the alpha-beta searches accept, by short name; others use the history."""


def key_rule(game: pyspiel.Game) -> KeyRule:
    """The key rule of `game` (the history for a game not in `KEY_RULES`)."""
    return KEY_RULES.get(game.get_type().short_name, _UNAUDITED)


def string_key(state: pyspiel.State) -> Hashable:
    """`(current_player(), str(state))`: the key of games whose string is the whole state."""
    return (state.current_player(), str(state))


def string_move_key(state: pyspiel.State) -> Hashable:
    """`(current_player(), move_number(), str(state))`."""
    return (state.current_player(), state.move_number(), str(state))


def history_key(state: pyspiel.State) -> Hashable:
    """The history of actions, chance outcomes included."""
    return tuple(state.history())


def amazons_key(state: pyspiel.State) -> Hashable:
    """amazons: the string, plus the phase and the last action in the middle of a turn.

    A turn is three actions, so the phase is the move number modulo 3 (no chance nodes). After
    the first action the last one is the square of the picked queen (whose moves are legal), after
    the second the queen's new square (from which the arrow is shot).
    """
    phase = state.move_number() % 3
    if phase == 0:
        return (state.current_player(), str(state))
    return (state.current_player(), str(state), phase, state.history()[-1])


def checkers_key(state: pyspiel.State) -> Hashable:
    """checkers: the string, the no-capture counter, and the last action when it captured.

    An action is a mixed-base number whose last digit is the move type, so `action % 2 == 1` is
    a capture; the counter is the number of actions since the last capture, and only its value
    up to the limit matters (the game is drawn there). After a capture the last action also
    fixes the piece that must go on jumping when the same player moves again.
    """
    history = state.history()
    counter = 0
    for action in reversed(history):
        if action & 1 or counter >= _CHECKERS_NO_CAPTURE_LIMIT:
            break
        counter += 1
    last = history[-1] if counter == 0 and history else None
    return (state.current_player(), str(state), counter, last)


class PigKey:
    """pig: the string and the number of decisions so far (the game ends at `horizon` of them).

    The string shows scores and turn total, not the decision counter. It is recounted from the
    history: a roll is followed by a chance outcome, a stop is not. Counting is resumed from
    `root`, so that a search pays only for the actions below its root.
    """

    __slots__ = ("_decision_next", "_decisions", "_length")

    def __init__(self, root: pyspiel.State | None = None) -> None:
        self._length = 0
        self._decisions = 0
        self._decision_next = True  # the initial state is player 0's decision
        if root is not None:
            self._length, self._decisions, self._decision_next = self._count(root.history(), 0)

    def _count(self, history: list[int], start: int) -> tuple[int, int, bool]:
        if start == 0:
            decisions, decision_next = 0, True
        else:
            decisions, decision_next = self._decisions, self._decision_next
        for action in history[start:]:
            if decision_next:
                decisions += 1
                decision_next = action != _PIG_ROLL
            else:
                decision_next = True
        return len(history), decisions, decision_next

    def __call__(self, state: pyspiel.State) -> Hashable:
        history = state.history()
        # A state shorter than the root is not below it: count from the start.
        start = self._length if len(history) >= self._length else 0
        _, decisions, _ = self._count(history, start)
        return (state.current_player(), str(state), decisions)


class ChanceCountKey:
    """The string and the number of chance outcomes in the history (backgammon).

    backgammon's string shows everything but the turn counter, which is a function of the number
    of dice rolls so far and of what the string does show (whether the state is a chance node,
    whether the player is on the extra move of a double): after r rolls it is r - 1 before the
    roll's first move and r after it. The integers of the history do not say which were chance
    outcomes, and `full_history()` (which does) costs about 40 µs, so the count is carried down
    the search: a state's count is its parent's plus one if the parent was a chance node, the
    parent being the state with one action fewer, keyed before it by any top-down search. A
    state whose parent was not keyed is counted from `full_history()`.
    """

    __slots__ = ("_counts", "_length")

    def __init__(self, root: pyspiel.State | None = None) -> None:
        self._length = 0 if root is None else len(root.history())
        # Actions below the root -> (chance outcomes in the history, is a chance node).
        self._counts: dict[tuple[int, ...], tuple[int, bool]] = {}
        if root is not None:
            self._counts[()] = (self._full_count(root), root.is_chance_node())

    @staticmethod
    def _full_count(state: pyspiel.State) -> int:
        return sum(1 for step in state.full_history() if step.player == pyspiel.PlayerId.CHANCE)

    def __call__(self, state: pyspiel.State) -> Hashable:
        history = state.history()
        if len(history) < self._length:
            return (state.current_player(), str(state), self._full_count(state))
        below = tuple(history[self._length :])
        known = self._counts.get(below)
        if known is None:
            parent = self._counts.get(below[:-1]) if below else None
            count = self._full_count(state) if parent is None else parent[0] + parent[1]
            known = self._counts[below] = (count, state.is_chance_node())
        return (state.current_player(), str(state), known[0])


def key_function(game: pyspiel.Game, root: pyspiel.State | None = None) -> KeyFunction:
    """The transposition key of `game`'s states.

    Args:
        game: The game.
        root: The root of the search that will use the keys, or None. Some keys are counted
            from the history; they then resume from the root instead of the initial state. With
            a root, keys are meant for the root and the states below it.

    Returns:
        A function from a state to a hashable key: equal keys mean equal states.
    """
    kind = key_rule(game).kind
    if kind == "pig":
        return PigKey(root)
    if kind == "chance_count":
        return ChanceCountKey(root)
    functions: dict[str, KeyFunction] = {
        "string": string_key,
        "string_move": string_move_key,
        "amazons": amazons_key,
        "checkers": checkers_key,
        "history": history_key,
    }
    return functions[kind]
