"""`BotSpec`, what the registry knows of a bot; `SearchSpec`, how a search is called; and the
parameter groups bots share.

A bot family module (`bots/<family>.py`) declares its specs (`SPECS`); the registry collects the
`SPECS` of every module of this package. A bot over one of this package's searches is declared
by `search_bot`: its `SearchSpec` says which search function it calls, with which settings
dataclass, limits, evaluator and keywords, and one generic builder makes the bot from it. The
epsilon sweep calls the same `SearchSpec`, so a swept search and the bot of the same name take
the same parameters with the same defaults. A spec's parameters come from the settings
dataclasses (`params.declared`) plus the shared groups here: limits, evaluator, move-choice
policy and seed.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import pyspiel

from spiel_bounded.bots.base import POLICIES, SearchBot
from spiel_bounded.evaluators import (
    EVALUATOR_FORMS,
    EVALUATOR_NAMES,
    MIX_PREFIX,
    NET_PREFIX,
    Evaluator,
    make_evaluator,
)
from spiel_bounded.evaluators.heuristics import has_heuristic
from spiel_bounded.evaluators.mixed import parse_mix
from spiel_bounded.games import (
    GameInfo,
    Requirements,
    describe_requirements,
    unsupported_reasons,
)
from spiel_bounded.limits import DEFAULT_SECONDS, Limits
from spiel_bounded.params import POSITIVE_INT, SEED, OneOf, Param, declared, pick
from spiel_bounded.result import SearchResult

Builder = Callable[[pyspiel.Game, GameInfo, int, dict[str, Any]], pyspiel.Bot]


@dataclass(frozen=True, kw_only=True)
class BotSpec:
    """A registered bot.

    Attributes:
        name: Registry name.
        description: One line saying what the bot is.
        params: The accepted parameters.
        requirements: The games the bot can play (the same value its search checks).
        build: Makes the bot from (game, info, player_id, checked params).
        search: How the bot's search is called (None for a bot that is not one of this
            package's searches, e.g. OpenSpiel's stock bots); the epsilon sweep calls it.
        refuse: Why the bot cannot play a game its `requirements` admit ("" when it can).
        plays_note: What `refuse` demands, in words, appended to `plays`.
    """

    name: str
    description: str
    params: Mapping[str, Param]
    requirements: Requirements
    build: Builder = field(repr=False)
    search: SearchSpec | None = field(default=None, repr=False)
    refuse: Callable[[GameInfo], str] | None = field(default=None, repr=False)
    plays_note: str = ""

    def reasons_against(self, info: GameInfo) -> list[str]:
        """Why this bot cannot play the game (empty when it can)."""
        reasons = unsupported_reasons(info, self.requirements)
        if not reasons and self.refuse is not None:
            reasons += [reason for reason in [self.refuse(info)] if reason]
        return reasons

    @property
    def plays(self) -> str:
        """The games the bot can play, in words."""
        plays = describe_requirements(self.requirements)
        return f"{plays}, {self.plays_note}" if self.plays_note else plays

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
        defaults = {
            name: "required" if param.required else _shown(param.default)
            for name, param in self.params.items()
        }
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
        if value.startswith(MIX_PREFIX):
            mix = parse_mix(value)
            for part in (mix.first, mix.second):
                if part == "auto":
                    raise ValueError(f"{value!r}: name each mixed evaluator; auto is not mixed")
                _evaluator_spec(part)
            return value
        if value.startswith(NET_PREFIX) and len(value) > len(NET_PREFIX):
            return value
        return OneOf(
            ("auto", *EVALUATOR_NAMES, f"{NET_PREFIX}PATH", f"{MIX_PREFIX}W:FIRST+SECOND")
        )(value)
    if isinstance(value, Evaluator):
        return value
    raise ValueError(f"must be one of auto, {EVALUATOR_FORMS} or an Evaluator; got {value!r}")


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
        + EVALUATOR_FORMS
        + ", or an Evaluator object",
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


@dataclass(frozen=True, kw_only=True)
class SearchSpec:
    """How a search function of `spiel_bounded.search` is called from checked parameters.

    The one description of a search that both the bot (`search_bot`) and the epsilon sweep
    (`spiel_bounded.experiments.tasks`) use: the same parameters, defaults and checks.

    Attributes:
        function: The search, called as `function(state, limits=..., [settings=...],
            [evaluator=...], **keywords)`.
        settings: Its settings dataclass (fields declared with `params.setting`), or None.
        omit: Settings fields it does not offer as parameters (they keep their defaults).
        limits: The limit parameters it takes (a subset of `LIMIT_PARAMS`, or its own).
        limits_of: Makes the `Limits` of checked parameters (default `limits_from`:
            `DEFAULT_SECONDS` when no limit is given).
        evaluator: Whether it takes a leaf evaluator (the `evaluator` / `rollouts` parameters).
        auto_evaluator: What `evaluator="auto"` means ("": heuristic when the game has one,
            else rollout).
        keywords: Parameters passed to `function` as keywords of the same name.
        seed_keyword: The keyword that takes the `seed` parameter ("": it takes none).
        proves: It runs until the root is proved (its error is measured against the game
            value); False for a fixed-depth search (measured against its own epsilon 0).
        prepare: Checks what only a built bot can check (its seat, the game's bounds), raising
            `ValueError`; None when there is nothing to check.
    """

    function: Callable[..., SearchResult]
    settings: type | None = None
    omit: frozenset[str] = frozenset()
    limits: Mapping[str, Param] = field(default_factory=lambda: dict(LIMIT_PARAMS))
    limits_of: Callable[[Mapping[str, Any]], Limits] = limits_from
    evaluator: bool = True
    auto_evaluator: str = ""
    keywords: Mapping[str, Param] = field(default_factory=dict)
    seed_keyword: str = ""
    proves: bool = False
    prepare: Callable[[pyspiel.Game, GameInfo, int, Mapping[str, Any]], None] | None = None

    @property
    def params(self) -> dict[str, Param]:
        """Every parameter of the search: epsilon first, then limits, evaluator, settings,
        keywords and seed."""
        settings = declared(self.settings) if self.settings is not None else {}
        settings = {name: param for name, param in settings.items() if name not in self.omit}
        head = {"epsilon": settings["epsilon"]} if "epsilon" in settings else {}
        evaluator: dict[str, Param] = {}
        if self.evaluator:
            evaluator = dict(EVALUATOR_PARAMS)
            if self.auto_evaluator:
                evaluator["evaluator"] = Param(
                    "auto",
                    f"leaf evaluator: auto ({self.auto_evaluator}), "
                    + EVALUATOR_FORMS
                    + ", or an Evaluator object",
                    EVALUATOR_PARAMS["evaluator"].check,
                )
        return {**head, **self.limits, **evaluator, **settings, **self.keywords, **SEED_PARAM}

    def bind(
        self, game: pyspiel.Game, params: Mapping[str, Any], *, limits: Limits | None = None
    ) -> Callable[[pyspiel.State], SearchResult]:
        """The search with checked `params` applied: a state in, a `SearchResult` out.

        `limits` replaces the limits of `params` (`limits_of`) when given: a measurement
        searches with exactly the limits it states, none meaning none."""
        arguments: dict[str, Any] = {
            "limits": limits if limits is not None else self.limits_of(params)
        }
        if self.settings is not None:
            arguments["settings"] = self.settings(**pick(self.settings, params))
        if self.evaluator:
            arguments["evaluator"] = evaluator_from(game, params, auto=self.auto_evaluator)
        arguments.update({name: params[name] for name in self.keywords})
        if self.seed_keyword:
            arguments[self.seed_keyword] = params["seed"]
        return functools.partial(self.function, **arguments)


def search_bot(
    *,
    name: str,
    description: str,
    requirements: Requirements,
    search: SearchSpec,
    policy: bool = True,
    refuse: Callable[[GameInfo], str] | None = None,
    plays_note: str = "",
) -> BotSpec:
    """The `BotSpec` of a `SearchBot` over `search`.

    With `policy`, the bot offers the `policy` parameter and picks its move from the root
    children's bounds (`bots.base.choose_action`); without, it plays the search's own move.
    """
    params = search.params
    if policy:  # after the evaluator's parameters, else before the seed
        items = list(params.items())
        at = list(params).index("rollouts") + 1 if "rollouts" in params else len(items) - 1
        params = dict(items[:at] + list(POLICY_PARAM.items()) + items[at:])

    def build(
        game: pyspiel.Game, info: GameInfo, player_id: int, checked: dict[str, Any]
    ) -> pyspiel.Bot:
        if search.prepare is not None:
            search.prepare(game, info, player_id, checked)
        return SearchBot(
            game,
            player_id,
            search.bind(game, checked),
            policy=checked.get("policy"),
            seed=checked["seed"],
        )

    return BotSpec(
        name=name,
        description=description,
        params=params,
        requirements=requirements,
        build=build,
        search=search,
        refuse=refuse,
        plays_note=plays_note,
    )
