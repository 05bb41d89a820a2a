"""The check every bot makes of the state it is asked to move in, before any search sees it.

OpenSpiel's own bots do not check: its C++ `MCTSBot` and uniform random bot kill the process
(a segmentation fault) when stepped on a terminal state or a chance node, the random bot also
when another player is to move; its Python `MCTSBot` answers a chance node with action -1 and
a terminal state with an `IndexError`; `minimax.alpha_beta_search` raises a `SpielError`. And no
search notices a state of another game: it searches it (a move of the wrong game) or fails deep
inside a heuristic. `StateCheck` refuses all of these with a `ValueError` naming the bot, the
games and the problem. `SearchBot` (every bot of ours), the C++ `mcts` wrapper and
`CheckedBot` (around OpenSpiel's other bots) call it first thing in `step`.

What a bot accepts: a decision node (one player to move) of the game it was built for, loaded
with the same parameters, where its own player is to move: `load_bot(name, game, player_id)`
seats every bot it builds (`seat_bot`), so a bot stepped for another player says so instead of
choosing that player's move. Drivers load one bot per seat.
"""

from __future__ import annotations

from typing import Final

import pyspiel

from spiel_bounded.games import game_description, game_key

_NO_PLAYER: Final = {
    int(pyspiel.PlayerId.SIMULTANEOUS): "a simultaneous-move node (no bot here plays those)",
    int(pyspiel.PlayerId.MEAN_FIELD): "a mean-field node (no bot here plays those)",
}


class StateCheck:
    """Refuses a state that a bot of `game` cannot move in; cheap when the state is fine.

    Calling it with a state returns None or raises. A state's game is compared with the bot's
    once per game object (`state.get_game()` returns the same object for every state of one
    loaded game), so the steady cost is one `get_game()` and one `current_player()` call:
    about 0.6 us per move (see docs/bots.md).

    Attributes:
        bot: The bot's name in messages (the registry sets the registered name).
        game: The game the bot was built for.
        player: The one player the bot can move for (None: whichever player is to move).
    """

    __slots__ = ("_accepted", "_key", "bot", "game", "player")

    def __init__(self, game: pyspiel.Game, bot: str, *, player: int | None = None) -> None:
        self.bot = bot
        self.game = game
        self.player = player
        self._key = game_key(game)
        self._accepted = game

    def __call__(self, state: pyspiel.State) -> None:
        """Returns when `state` is a decision node of the bot's game for a player it can move
        for.

        Raises:
            TypeError: `state` is not a `pyspiel.State`.
            ValueError: `state` belongs to another game (or the same game with other
                parameters), is terminal, is a chance node or a simultaneous-move node, or (for
                a bot built for one seat) another player is to move. The message names the bot,
                the game and the problem.
        """
        if not isinstance(state, pyspiel.State):
            raise TypeError(
                f"{self.bot} was asked to move in {type(state).__name__!r}, not a pyspiel.State"
            )
        game = state.get_game()
        if game is not self._accepted:
            self._check_game(game)
        player = state.current_player()
        if player >= 0 and (self.player is None or player == self.player):
            return
        raise ValueError(self._refusal(state, player))

    def _check_game(self, game: pyspiel.Game) -> None:
        if game_key(game) != self._key:
            raise ValueError(
                f"{self.bot} was built for {game_description(self.game)} but was asked to move "
                f"in a state of {game_description(game)}; load a bot for that game"
            )
        self._accepted = game  # the next states of this game object pass at once

    def _refusal(self, state: pyspiel.State, player: int) -> str:
        where = f"{self.bot} ({game_description(self.game)})"
        if state.is_terminal():
            return (
                f"{where} was asked to move in a terminal state: the game is over (returns "
                f"{list(state.returns())}), there is no move to choose:\n{state}"
            )
        if state.is_chance_node():
            return (
                f"{where} was asked to move at a chance node: chance outcomes are sampled by "
                "the driver from state.chance_outcomes(), not chosen by a bot:\n"
                f"{state}"
            )
        if player >= 0:
            return (
                f"{where} plays player {self.player} but was asked to move when player "
                f"{player} is to move; load a bot for player {player}:\n{state}"
            )
        what = _NO_PLAYER.get(player, f"a state with no player to move (current_player {player})")
        return f"{where} was asked to move at {what}:\n{state}"


class CheckedBot(pyspiel.Bot):
    """One of OpenSpiel's bots behind a `StateCheck`: the state is checked before the bot sees
    it, and everything else is passed on unchanged.

    Attributes:
        bot: The wrapped bot.
        state_check: The check (its `bot` attribute names the bot in messages).
    """

    def __init__(
        self, bot: pyspiel.Bot, game: pyspiel.Game, name: str, *, player: int | None = None
    ) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot
        self.state_check = StateCheck(game, name, player=player)

    def step(self, state: pyspiel.State) -> int:
        self.state_check(state)
        return int(self.bot.step(state))

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        self.state_check(state)
        policy, action = self.bot.step_with_policy(state)
        return list(policy), int(action)

    def provides_policy(self) -> bool:
        return bool(self.bot.provides_policy())

    def get_policy(self, state: pyspiel.State) -> list[tuple[int, float]]:
        self.state_check(state)
        return list(self.bot.get_policy(state))

    def restart_at(self, state: pyspiel.State) -> None:
        self.bot.restart_at(state)

    def restart(self) -> None:
        self.bot.restart()

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        self.bot.inform_action(state, player_id, action)


def seat_bot(bot: pyspiel.Bot, name: str, player: int) -> pyspiel.Bot:
    """Sets the name `bot`'s state check gives in its messages and the one player it lets the
    bot move for; returns `bot`."""
    check = getattr(bot, "state_check", None)
    if isinstance(check, StateCheck):
        check.bot = name
        check.player = player
    return bot
