"""Names -> bots: collects every bot family's specs and builds bots with parameter checking.

`load_bot(name, game, player_id, **params)` is the one way to build a bot: every parameter is
checked against the bot's declared parameters, and a game the bot cannot play is refused with
the reason and the bots that can play it. Each bot family declares its specs next to its
builders (`bots/<family>.py`, a module-level `SPECS` tuple); the registry collects the `SPECS`
of every module of `spiel_bounded.bots`, so adding a bot adds no line here. A bot defined
outside the package is added with `register`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pyspiel

from spiel_bounded import bots
from spiel_bounded.bots.checks import seat_bot
from spiel_bounded.bots.spec import BotSpec
from spiel_bounded.games import check_epsilon, game_info, load_game
from spiel_bounded.params import checked


def _collected() -> dict[str, BotSpec]:
    """The `SPECS` of every module of `spiel_bounded.bots`, in module order."""
    specs: dict[str, BotSpec] = {}
    for module in pkgutil.iter_modules(bots.__path__):
        for spec in getattr(importlib.import_module(f"{bots.__name__}.{module.name}"), "SPECS", ()):
            if spec.name in specs:
                raise RuntimeError(f"two bots are called {spec.name!r}")
            specs[spec.name] = spec
    return specs


_REGISTRY: dict[str, BotSpec] = _collected()


# -- public API --------------------------------------------------------------------------------


def register(*specs: BotSpec) -> None:
    """Adds bots defined outside the package, which `load_bot`, `bots_for`, the tournament and
    `spiel_bounded.testing.check_bot` then know like the package's own.

    Raises:
        ValueError: A name that is already registered (the message names it).
    """
    taken = [spec.name for spec in specs if spec.name in _REGISTRY]
    if taken:
        raise ValueError(f"bot name(s) already registered: {', '.join(taken)}")
    _REGISTRY.update({spec.name: spec for spec in specs})


@contextmanager
def registered(*specs: BotSpec) -> Iterator[None]:
    """`register(*specs)` for the length of a `with` block, the bots unregistered when it ends
    (a test of a bot defined outside the package leaves the registry as it found it)."""
    register(*specs)
    try:
        yield
    finally:
        for spec in specs:
            _REGISTRY.pop(spec.name, None)


def list_bots() -> tuple[BotSpec, ...]:
    """Every registered bot, with its description and parameters."""
    return tuple(_REGISTRY.values())


def bots_for(game: pyspiel.Game | str) -> list[str]:
    """Names of the bots that can play `game`."""
    info = game_info(load_game(game))
    return [spec.name for spec in _REGISTRY.values() if not spec.reasons_against(info)]


def describe_bots(name: str | None = None, *, game: pyspiel.Game | str | None = None) -> str:
    """A readable listing: every bot (or the bot `name`), what it plays and its parameters with
    their defaults (`BotSpec.describe`).

    With `game`, the bots that can play it in full, then those that cannot, each with the reason;
    with `name` too, the bot and whether it can play the game.

    Raises:
        ValueError: An unknown bot (the message lists the registered names) or game.
    """
    specs = list(_REGISTRY.values()) if name is None else [get_spec(name)]
    if game is None:
        blocks = [spec.describe() for spec in specs]
        if name is None:
            blocks.insert(0, f"{len(specs)} registered bots:")
        return "\n\n".join(blocks)
    info = game_info(load_game(game))
    refusals = {spec.name: spec.reasons_against(info) for spec in specs}
    if name is not None:
        reasons = refusals[name]
        verdict = (
            f"cannot play {info.description}: {'; '.join(reasons)}"
            if reasons
            else f"can play {info.description}"
        )
        return f"{specs[0].describe()}\n\n{name} {verdict}"
    able = [spec for spec in specs if not refusals[spec.name]]
    unable = [spec for spec in specs if refusals[spec.name]]
    blocks = [f"{len(able)} of {len(specs)} bots can play {info.description}:"]
    blocks += [spec.describe() for spec in able]
    if unable:
        blocks.append(
            f"Bots that cannot play {info.description}:\n"
            + "\n".join(f"  {spec.name}: {'; '.join(refusals[spec.name])}" for spec in unable)
        )
    return "\n\n".join(blocks)


def get_spec(name: str) -> BotSpec:
    """The registered bot called `name`, or `ValueError` listing the registered names."""
    spec = _REGISTRY.get(name)
    if spec is None:
        raise ValueError(f"unknown bot {name!r}; registered bots: {', '.join(_REGISTRY)}")
    return spec


def check_params(spec: BotSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """All of the bot's parameters, defaults filled in, each checked; `ValueError` otherwise."""
    return checked(spec.params, params, f"bot {spec.name!r}")


def load_bot(name: str, game: pyspiel.Game | str, player_id: int, **params: Any) -> pyspiel.Bot:
    """Builds the registered bot `name` to play `game` as `player_id`.

    The bot checks every state it is asked to move in (`bots.checks.StateCheck`, its messages
    naming the bot `name`): a terminal state, a chance node, a state of another game or one
    where another player than `player_id` is to move is refused with `ValueError`.

    Raises:
        ValueError: Unknown bot, game or parameter; a bad parameter value (an `epsilon` not
            below the game's value range included); a player id out of range; or a game the bot
            cannot play (the message lists the bots that can).
    """
    spec = get_spec(name)
    loaded = load_game(game)
    info = game_info(loaded)
    reasons = spec.reasons_against(info)
    if reasons:
        able = [other.name for other in _REGISTRY.values() if not other.reasons_against(info)]
        raise ValueError(
            f"bot {name!r} cannot play {info.description}: {'; '.join(reasons)}. "
            f"Bots that can play it: {', '.join(able) if able else 'none'}"
        )
    if isinstance(player_id, bool) or not isinstance(player_id, int):
        raise ValueError(f"player_id must be an integer, got {player_id!r}")
    if not 0 <= player_id < info.num_players:
        raise ValueError(
            f"player_id {player_id} is out of range for {info.description}, which has "
            f"{info.num_players} players (0..{info.num_players - 1})"
        )
    checked = check_params(spec, params)
    if "epsilon" in checked:
        check_epsilon(checked["epsilon"], info, name)
    return seat_bot(spec.build(loaded, info, player_id, checked), name, player_id)
