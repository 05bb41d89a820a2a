"""A training config derived from the game alone: `train_value_net.py --game=NAME`.

What the game decides, measured or read from it, never guessed per name:

- the self-play bot: `bounded_ab` for two-player zero-sum games, `bounded_star2` where they have
  chance nodes, `maxn` for the others (a value per player);
- the first teacher's evaluator: the hand-written heuristic where the game has one, else random
  rollouts;
- the search depth, from a node budget a move (`NODE_BUDGET`, a tenth of it with rollouts, whose
  leaves cost a playout each): the deepest depth whose estimated tree fits, from the branching
  factor of random games (decision nodes' moves times the outcomes of the chance nodes between
  them), with alpha-beta's pruning counted as an exponent of 3/4 (none for max^n);
- the games a generation: about `POSITIONS_PER_GENERATION` played positions, counted with the
  length of random games, and no more than `LABELS_PER_GENERATION` tree labels
  (`games_per_generation`; breakthrough's first try, 299 games with two plies of labels, made
  1.03 million positions a generation);
- the network: two dense layers of 128 (convolutions cost 35-48 times the nodes a second on the
  native engine, measured on connect_four, breakthrough and othello, untrained networks from the
  second position, 2026-11-27: connect_four 828k nodes/s dense, 24k with two 3x3 convolutions
  of 32 channels); symmetric images where the package knows the game's symmetry (a mirror or a
  half turn of the board: `training/symmetry.py`); on hex, each side's cheapest connections and
  distance as inputs too (`[model] inputs = "connections"`: with them hex's loop scored 99.0%
  [94.6, 99.8] against C++ `mcts` after 35 generations, where the same recipe without them
  stayed at 33-36% after 124; `results/models/hex_connections/`); on amazons, the territory
  each side reaches first (`inputs = "territory"`: 95.0% [88.8, 97.8] against rollouts after 11
  generations, where amazons_v2 reached 60.0% after 38; `results/models/amazons_territory/`);
  on connect_four, the cells that would complete each side's lines (`inputs = "threats"`: from
  no knowledge, 0.55 hours of loop with them scored 70.5% [58.9, 79.9] and 65.0% [57.5, 71.9]
  on two suites against the same hours without them;
  `results/models/connect_four_scratch_threats/`);
- labels: for the alpha-beta family the top two plies of each search's tree (`tree_labels`,
  intervals, `label_depth` two below the search depth; one ply, the root's children, in wide
  games: `tree_labelling`), else the search value; mixed with the game's outcome at weight 0.5.
  On connect_four, 20 minutes of loop each: top-of-tree labels (13 generations of 937 games)
  scored 54.0% [48.1, 59.9] against the heuristic and 53% against root labels (22
  generations), which scored 47.5% [39.5, 55.5] (100 games a pairing, 0.1 s);
- the outcome of a game that ends with every return equal, in n-player games with a heuristic:
  the heuristic's values of its last position (`drawn_outcome`). Such a game was cut off by a
  move cap (chinese_checkers ends 0 for all at `max_moves`), and its returns would teach that
  making no progress is a draw;
- the loop: generations without a gate (Descent's continuous loop), a replay window of four,
  three epochs a generation, warm starts, and the learning curve of every fifth network.

A config file given as well overrides any of it, key by key within each section (`merge`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

from spiel_bounded import registry
from spiel_bounded.evaluators.heuristics import has_heuristic
from spiel_bounded.evaluators.value_net.connections import hex_board
from spiel_bounded.evaluators.value_net.territory import amazons_board
from spiel_bounded.evaluators.value_net.threats import MAX_CELLS as THREAT_CELLS
from spiel_bounded.evaluators.value_net.threats import line_game
from spiel_bounded.games import game_description, game_info, load_game
from spiel_bounded.training.symmetry import symmetry_of

NODE_BUDGET: Final = 20_000
"""Nodes a self-play search may visit a move, about 20 ms on the native engine."""
MAX_DEPTH: Final = 8
POSITIONS_PER_GENERATION: Final = 20_000
LABELS_PER_GENERATION: Final = 250_000
WIDE: Final = 12.0
"""A branching factor from which tree labels keep only the root's children."""
MIN_GAMES: Final = 50
MAX_GAMES: Final = 1_000
ALPHA_BETA: Final = ("bounded_ab", "bounded_star2")


@dataclass(frozen=True)
class RandomPlay:
    """What random games say of a game's size: `branching`, the mean number of nodes one
    decision ply multiplies a tree by (the legal moves of a decision node times the outcomes of
    the chance nodes before the next), and `plies`, the mean decision plies of a game."""

    branching: float
    plies: float


def random_play(game: pyspiel.Game, *, games: int = 20, seed: int = 0) -> RandomPlay:
    """`RandomPlay` measured on `games` uniformly random games from `seed`."""
    rng = np.random.default_rng(seed)
    moves: list[int] = []
    outcomes: list[int] = []
    decisions = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                choices = state.chance_outcomes()
                outcomes.append(len(choices))
                actions, probabilities = zip(*choices, strict=True)
                state.apply_action(int(rng.choice(actions, p=probabilities)))
            else:
                legal = state.legal_actions()
                moves.append(len(legal))
                decisions += 1
                state.apply_action(int(rng.choice(legal)))
    per_ply = float(np.mean(moves))
    if outcomes:
        per_ply *= float(np.mean(outcomes)) ** (len(outcomes) / max(decisions, 1))
    return RandomPlay(branching=max(per_ply, 1.0), plies=decisions / games)


@dataclass(frozen=True)
class TreeLabelling:
    """Which positions of each search's tree self-play keeps: those with at least `label_depth`
    plies left, the top `plies` plies below the root, about `per_move` of them a search."""

    label_depth: int
    plies: int
    per_move: float


def tree_labelling(play: RandomPlay, depth: int) -> TreeLabelling:
    """The top two plies of a depth-`depth` search (about b + 2b positions: every child, and the
    first child's children and one refutation of each other child), only the root's children
    (b) where the game is wide (`WIDE`) or the search shallow."""
    plies = 1 if play.branching >= WIDE or depth <= 2 else 2
    return TreeLabelling(
        label_depth=max(1, depth - plies), plies=plies, per_move=play.branching * (2 * plies - 1)
    )


def games_per_generation(play: RandomPlay, per_move: float = 1.0) -> int:
    """Self-play games a generation: about `POSITIONS_PER_GENERATION` played positions, each
    with its `per_move` labels, but no more than `LABELS_PER_GENERATION` labels (the memory and
    the training time a generation needs), counted with random games' length, between
    `MIN_GAMES` and `MAX_GAMES`."""
    per_move = max(per_move, 1.0)
    labels = min(POSITIONS_PER_GENERATION * per_move, LABELS_PER_GENERATION)
    wanted = round(labels / (max(play.plies, 1.0) * per_move))
    return int(min(MAX_GAMES, max(MIN_GAMES, wanted)))


def self_play_bot(game: pyspiel.Game) -> str:
    """The bot self-play uses (module docstring); `ValueError` when none of them plays it."""
    info = game_info(game)
    playable = registry.bots_for(game)
    if info.num_players == 2 and info.zero_sum:
        wanted = "bounded_star2" if info.has_chance else "bounded_ab"
    else:
        wanted = "maxn"
    if wanted not in playable:
        raise ValueError(
            f"--game: no self-play bot for {game_description(game)}: {wanted} cannot play it; "
            "accepted: "
            "two-player zero-sum games (bounded_ab, bounded_star2) and the n-player games "
            "maxn plays"
        )
    return wanted


def search_depth(play: RandomPlay, bot: str, rollouts: bool) -> int:
    """The deepest search whose estimated tree fits the node budget (module docstring)."""
    budget = NODE_BUDGET / 10 if rollouts else NODE_BUDGET
    exponent = 0.75 if bot in ALPHA_BETA else 1.0
    factor = play.branching
    if factor <= 1.0:
        return MAX_DEPTH
    return int(min(MAX_DEPTH, max(1, math.floor(math.log(budget) / (exponent * math.log(factor))))))


def model_inputs(game: pyspiel.Game) -> str:
    """What the network reads: a hex board's connections besides the board (`connections.py`),
    an amazons board's territory (`territory.py`), connect_four's threats on boards of up to 64
    cells (`threats.py`), the observation alone elsewhere."""
    if hex_board(game) is not None:
        return "connections"
    if amazons_board(game) is not None:
        return "territory"
    if game.get_type().short_name == "connect_four" and (lines := line_game(game)) is not None:
        return "threats" if lines.cells <= THREAT_CELLS else "observation"
    return "observation"


def default_config(game_string: str, directory: str) -> dict[str, dict[str, Any]]:
    """The raw sections of the config `--game=game_string` trains with, into `directory`."""
    game = load_game(game_string)
    bot = self_play_bot(game)
    evaluator = "heuristic" if has_heuristic(game) else "rollout"
    play = random_play(game)
    depth = search_depth(play, bot, rollouts=evaluator == "rollout")
    tree = bot in ALPHA_BETA
    labelling = tree_labelling(play, depth) if tree else None
    return {
        "data": {
            "game": game_string,
            "games": games_per_generation(play, labelling.per_move if labelling else 1.0),
            "bot": bot,
            "bot_params": {"depth": depth, "engine": "auto"},
            "opening_moves": 4,
            "epsilon": 0.1,
            "seed": 1,
            "tree_labels": tree,
            "label_depth": labelling.label_depth if labelling else 1,
            "root_children": False,
            "drawn_outcome": "returns" if tree or evaluator != "heuristic" else "heuristic",
        },
        "model": {"kind": "mlp", "width": 128, "depth": 2, "inputs": model_inputs(game)},
        "train": {
            "batch_size": 512,
            "learning_rate": 3e-4,
            "weight_decay": 1e-3,
            "max_epochs": 3,
            "patience": 1,
            "labelling": "interval" if tree else "mix",
            "outcome_weight": 0.5,
            "mirror": symmetry_of(game) is not None,
            "seed": 1,
        },
        "generations": {
            "count": 10_000,
            "start": evaluator,
            "window": 4,
            "gate_games": 0,
            "warm_start": True,
        },
        "curve": {"every": 5, "games": 100, "seconds_per_move": 0.1},
        "output": {"directory": directory, "data_directory": f"{directory}/unused"},
    }


def merge(
    defaults: Mapping[str, Mapping[str, Any]], overrides: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """`defaults` with each section's keys replaced by those `overrides` gives (a section it
    adds comes whole; a key's value, `bot_params` say, replaces the default's whole)."""
    merged = {section: dict(values) for section, values in defaults.items()}
    for section, values in overrides.items():
        if not isinstance(values, Mapping):
            raise ValueError(f"the override config's {section!r} must be a [section] table")
        merged.setdefault(section, {}).update(values)
    return merged
