"""`BotSpec`, what the registry knows of a bot, and the parameter groups bots share.

A bot family module (`bots/<family>.py`) declares its specs next to their builders. A spec's
parameters come from the settings dataclasses the bot is built from (`params.declared`) plus
the shared groups here: limits, evaluator, move-choice policy and seed.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import pyspiel

from spiel_bounded.bots.base import POLICIES
from spiel_bounded.evaluators import EVALUATOR_NAMES, NET_PREFIX, Evaluator, make_evaluator
from spiel_bounded.evaluators.heuristics import has_heuristic
from spiel_bounded.games import (
    GameInfo,
    Requirements,
    describe_requirements,
    unsupported_reasons,
)
from spiel_bounded.limits import DEFAULT_SECONDS, Limits
from spiel_bounded.params import POSITIVE_INT, SEED, OneOf, Param, declared

Builder = Callable[[pyspiel.Game, GameInfo, int, dict[str, Any]], pyspiel.Bot]


@dataclass(frozen=True)
class BotSpec:
    """A registered bot.

    Attributes:
        name: Registry name.
        description: One line saying what the bot is.
        params: The accepted parameters.
        requirements: The games the bot can play (the same value its search checks).
        build: Makes the bot from (game, info, player_id, checked params).
    """

    name: str
    description: str
    params: Mapping[str, Param]
    requirements: Requirements
    build: Builder = field(repr=False)

    def reasons_against(self, info: GameInfo) -> list[str]:
        """Why this bot cannot play the game (empty when it can)."""
        return unsupported_reasons(info, self.requirements)

    @property
    def plays(self) -> str:
        """The games the bot can play, in words."""
        return describe_requirements(self.requirements)

    def describe(self, *, width: int = 100) -> str:
        """The bot for a reader: name, description, the games it plays, and every parameter
        with its default and meaning, wrapped to `width` columns."""
        lines = [self.name]
        lines += textwrap.wrap(self.description, width, initial_indent="  ", subsequent_indent="  ")
        lines += textwrap.wrap(
            f"plays: {self.plays}", width, initial_indent="  ", subsequent_indent="    "
        )
        if not self.params:
            return "\n".join([*lines, "  parameters: none"])
        lines.append("  parameters (name, default, meaning):")
        defaults = {name: _shown(param.default) for name, param in self.params.items()}
        name_width = max(map(len, self.params)) + 2
        default_width = max(map(len, defaults.values())) + 2
        indent = " " * (4 + name_width + default_width)
        for name, param in self.params.items():
            head = f"    {name:<{name_width}}{defaults[name]:<{default_width}}"
            doc = textwrap.wrap(
                param.doc, max(width - len(indent), 30), break_on_hyphens=False
            ) or [""]
            lines.append(head + doc[0])
            lines += [indent + line for line in doc[1:]]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe()


def _shown(value: Any) -> str:
    """A default as a user types it: strings bare, everything else as Python writes it."""
    return value if isinstance(value, str) else repr(value)


def _evaluator_spec(value: Any) -> Any:
    if isinstance(value, str):
        if value.startswith(NET_PREFIX) and len(value) > len(NET_PREFIX):
            return value
        return OneOf(("auto", *EVALUATOR_NAMES, f"{NET_PREFIX}PATH"))(value)
    if isinstance(value, Evaluator):
        return value
    raise ValueError(
        f"must be one of auto, {', '.join(EVALUATOR_NAMES)}, {NET_PREFIX}PATH or an Evaluator; "
        f"got {value!r}"
    )


LIMIT_PARAMS: Final = {
    **declared(Limits),
    "seconds": Param(
        None,
        f"time limit per move in seconds (None: unlimited; {DEFAULT_SECONDS:g} s when no limit "
        "is given)",
        declared(Limits)["seconds"].check,
    ),
}
"""depth, nodes, seconds (`Limits`); a bot given none of them takes `DEFAULT_SECONDS`."""

EVALUATOR_PARAMS: Final = {
    "evaluator": Param(
        "auto",
        "leaf evaluator: auto (heuristic when the game has one, else rollout), "
        + ", ".join(EVALUATOR_NAMES)
        + f", {NET_PREFIX}PATH (a trained value network), or an Evaluator object",
        _evaluator_spec,
    ),
    "rollouts": Param(1, "random playouts per evaluation (rollout evaluator)", POSITIVE_INT),
}
POLICY_PARAM: Final = {
    "policy": Param(
        "pessimistic", "move choice from root bounds: " + ", ".join(POLICIES), OneOf(POLICIES)
    )
}
SEED_PARAM: Final = {"seed": Param(0, "seed of all the bot's randomness", SEED)}


def limits_from(params: Mapping[str, Any]) -> Limits:
    """The `Limits` of checked parameters; `DEFAULT_SECONDS` when no limit is given."""
    depth, nodes, seconds = params.get("depth"), params.get("nodes"), params.get("seconds")
    if depth is None and nodes is None and seconds is None:
        seconds = DEFAULT_SECONDS
    return Limits(depth=depth, nodes=nodes, seconds=seconds)


def evaluator_from(game: pyspiel.Game, params: Mapping[str, Any], *, auto: str = "") -> Evaluator:
    """The evaluator of checked parameters; "auto" is `auto` when given, else heuristic when
    the game has one and rollout otherwise."""
    spec = params["evaluator"]
    if spec == "auto":
        spec = auto or ("heuristic" if has_heuristic(game) else "rollout")
    return make_evaluator(spec, game, rollouts=params["rollouts"], seed=params["seed"])
