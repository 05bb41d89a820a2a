"""Settings of value-network training: the self-play data it learns from, and the training."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from spiel_bounded.evaluators.heuristics import has_heuristic
from spiel_bounded.games import game_description, load_game
from spiel_bounded.params import (
    FLAG,
    NON_NEGATIVE_INT,
    POSITIVE,
    POSITIVE_INT,
    SEED,
    TABLE,
    Number,
    OneOf,
    anything,
    check_fields,
    setting,
)

LABELLINGS: Final = ("outcome", "search", "mix", "interval")
DRAWN_OUTCOMES: Final = ("returns", "heuristic")
"""What a self-play game that ends with every player's return equal teaches (`DataConfig`)."""
REFERENCES: Final = ("heuristic", "rollout", "mcts", "previous")
"""What `training.curve` can score a network against (its module docstring)."""
FRACTION: Final = Number(minimum=0.0, maximum=1.0)
PROBABILITY: Final = Number(minimum=0.0, maximum=1.0)


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """Mini-batch training with early stopping."""

    batch_size: int = setting(256, "positions per gradient step", POSITIVE_INT)
    learning_rate: float = setting(1e-3, "Adam step size", POSITIVE)
    weight_decay: float = setting(1e-4, "decoupled weight decay", Number(minimum=0.0))
    max_epochs: int = setting(40, "passes over the training set at most", POSITIVE_INT)
    patience: int = setting(5, "epochs without improvement before stopping", POSITIVE_INT)
    validation_fraction: float = setting(
        0.1, "share of games held out", Number(minimum=0.0, maximum=1.0, strict=True)
    )
    # Held out for validation: games, never single positions.
    labelling: str = setting("mix", "outcome, search, mix or interval", OneOf(LABELLINGS))
    # "outcome": the game's final returns; "search": the self-play bot's search value at the
    # position; "mix": `outcome_weight` of the first plus the rest of the second (positions
    # without a search value get the outcome); "interval": the bounds the search proved on the
    # position and on its root children, mixed with the outcome likewise (`targets.targets`).
    outcome_weight: float = setting(0.5, "weight of the outcome in mix and interval", FRACTION)
    mirror: bool = setting(
        False,
        "train on every position's symmetric image too (a mirror or a half turn of the board: "
        "`symmetry.MIRRORS` games)",
        FLAG,
    )
    seed: int = setting(0, "seed of initialisation, shuffling and split", SEED)

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class DataConfig:
    """Self-play that generates positions."""

    game: str = setting("connect_four", "OpenSpiel game string", anything)
    games: int = setting(100, "self-play games", POSITIVE_INT)
    bot: str = setting("bounded_ab", "registered bot playing every seat", anything)
    bot_params: Mapping[str, Any] = setting({}, "the bot's parameters", TABLE)
    opening_moves: int = setting(2, "random plies at the start", NON_NEGATIVE_INT)
    epsilon: float = setting(0.05, "probability of a random move", PROBABILITY)
    # After the opening; the bot still searches, so the position keeps its search value.
    seed: int = setting(0, "base seed", SEED)
    # Game i is seeded from (seed, i) (its chance, exploration and each seat's bot seed), so a
    # resumed run plays the same games when the bot has no time limit. A `seed` in `bot_params`
    # overrides the bots' seeds for every game.
    root_children: bool = setting(
        True, "keep each searched position's root children with their bounds", FLAG
    )
    # What `labelling = "interval"` trains on besides the positions played. They outnumber the
    # positions by the branching factor (backgammon: about 20 a move), so a run that does not
    # use them should not keep them.
    tree_labels: bool = setting(
        False, "keep every position each search's table bounded (alpha-beta family)", FLAG
    )
    # Instead of the root children: the whole searched tree as labels (TreeStrap; Descent's tree
    # learning), each position with the interval its table entry holds (`search.table_walk`).
    label_depth: int = setting(
        1, "with tree_labels: plies left at least for a table entry to be kept", POSITIVE_INT
    )
    drawn_outcome: str = setting(
        "returns",
        "a game ending with equal returns teaches them (returns) or the heuristic's values",
        OneOf(DRAWN_OUTCOMES),
    )
    # "heuristic": such a game's outcome is the hand-written heuristic's values of its last
    # position before the end. A game cut off by a move cap (chinese_checkers: `max_moves`) ends
    # 0 for every player, which teaches that making no progress is a draw; the heuristic's
    # values say how far each player got (Descent's reinforcement heuristic, for the cap). Games
    # with such a value are played by the Python loop, which sees that position.

    def __post_init__(self) -> None:
        check_fields(self)
        if not isinstance(self.game, str) or not self.game:
            raise ValueError(f"[data] game must be a game string, got {self.game!r}")
        if not isinstance(self.bot, str) or not self.bot:
            raise ValueError(f"[data] bot must be a registered bot name, got {self.bot!r}")
        if self.drawn_outcome == "heuristic":
            game = load_game(self.game)
            if not has_heuristic(game):
                raise ValueError(
                    "[data] drawn_outcome = 'heuristic' needs a game with a hand-written "
                    f"heuristic, and {game_description(game)} has none; use 'returns'"
                )


@dataclass(frozen=True, kw_only=True)
class GenerationSettings:
    """The `[generations]` section of a training config."""

    count: int = setting(3, "generations to train", POSITIVE_INT)
    start: str = setting(
        "heuristic",
        "generation 0's evaluator: heuristic, rollout (any evaluator name), a checkpoint path "
        "or net:PATH",
        anything,
    )
    window: int = setting(2, "newest generations whose games are trained on", POSITIVE_INT)
    gate_games: int = setting(
        100, "games of a gate match (an even number; 0: no gate)", NON_NEGATIVE_INT
    )
    # Without a gate every new network becomes the teacher of the next generation: Descent's
    # continuous loop (play, label, train on a replay window of `window` generations, repeat).
    gate_score: float = setting(
        0.55, "score a new network needs against the best", Number(minimum=0.0, maximum=1.0)
    )
    gate_params: Mapping[str, Any] = setting(
        {}, "the gate match bot's parameters (the [data] bot), without evaluator", TABLE
    )
    # Each side plays with its own network as evaluator.
    hours: float = setting(
        0.0,
        "start no generation once the run's generations took this long (0: count only)",
        Number(minimum=0.0),
    )
    # Wall-clock hours summed over the recorded generations, so a resumed run goes on from them
    # (the part of an interrupted generation played before the interruption is not counted).
    warm_start: bool = setting(
        True, "train each new network from the best one's parameters (same [model] only)", FLAG
    )
    # Otherwise, and when the best is the heuristic or a network of another model, a new
    # network starts from [train] seed's initialisation.
    playout_weight: float = setting(
        0.0,
        "weight of one seeded random playout mixed into the teacher network's value in "
        "self-play, below 1 (0: the network alone)",
        Number(minimum=0.0, maximum=1.0),
    )
    # Self-play searches then value a leaf at mix:W:net:PATH+seeded_rollout (AlphaGo's mix,
    # `evaluators.mixed`); seeded, so each search may keep its evaluator's twin. Gates and
    # curves play the networks alone.

    def __post_init__(self) -> None:
        check_fields(self)
        if self.gate_games % 2:
            raise ValueError(
                f"[generations] gate_games must be even (seats swapped), got {self.gate_games}"
            )
        if self.playout_weight >= 1.0:
            raise ValueError(
                "[generations] playout_weight must be below 1 (the network keeps some weight), "
                f"got {self.playout_weight}"
            )
        if "evaluator" in self.gate_params:
            raise ValueError(
                "[generations] gate_params must be a table of the bot's parameters without "
                f"evaluator (each side plays with its own network), got {self.gate_params!r}"
            )


@dataclass(frozen=True, kw_only=True)
class CurveSettings:
    """The `[curve]` section of a training config: what `training.curve` scores each network
    against, and how."""

    every: int = setting(1, "score every n-th generation's network (and the newest)", POSITIVE_INT)
    games: int = setting(100, "games against each reference (an even number)", POSITIVE_INT)
    seconds_per_move: float = setting(0.1, "seconds a move for every bot", POSITIVE)
    opening_moves: int = setting(
        0, "random plies of the openings (0: [data] opening_moves + 2)", NON_NEGATIVE_INT
    )
    # In games without chance nodes the openings are a suite drawn once, none of whose positions
    # a training game reached (`training.openings`); with chance nodes, random plies per game.
    params: Mapping[str, Any] = setting(
        {}, "the [data] bot's parameters in these matches, without evaluator", TABLE
    )
    # Its evaluator is the network or the reference's; not [data]'s own parameters, which set
    # self-play's depth: by default the bot's defaults and the time a move.
    references: tuple[str, ...] = setting((), "what each network plays (empty: derived)", anything)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.games % 2:
            raise ValueError(f"[curve] games must be even (seats swapped), got {self.games}")
        if "evaluator" in self.params:
            raise ValueError(
                "[curve] params must be a table of the bot's parameters without evaluator (the "
                f"network is the evaluator), got {self.params!r}"
            )
        references = self.references
        if isinstance(references, str) or not all(isinstance(name, str) for name in references):
            raise ValueError(f"[curve] references must be a list of names, got {references!r}")
        unknown = [name for name in references if name not in REFERENCES]
        if unknown:
            raise ValueError(
                f"[curve] unknown reference(s) {', '.join(map(repr, unknown))}; accepted: "
                f"{', '.join(REFERENCES)}"
            )
        object.__setattr__(self, "references", tuple(references))


def references_for(settings: CurveSettings, game_string: str) -> tuple[str, ...]:
    """The references a network of `game_string` plays; `ValueError` for "heuristic" on a game
    without one."""
    game = load_game(game_string)
    if not settings.references:
        first = "heuristic" if has_heuristic(game) else "rollout"
        return (first, "mcts", "previous")
    if "heuristic" in settings.references and not has_heuristic(game):
        raise ValueError(
            f"[curve] references: {game_description(game)} has no hand-written heuristic; "
            "use rollout instead"
        )
    return settings.references
