"""`alphazero`: a network trained by OpenSpiel's JAX AlphaZero, playing with OpenSpiel's own MCTS
and AlphaZero evaluator, so that users of that trainer can enter their networks in tournaments.

OpenSpiel 2.0.2's trainer (`python -m open_spiel.python.examples.alpha_zero --path=DIR ...`)
writes `DIR/config.json` (the `alpha_zero.Config`: game, network, search settings) and Orbax
checkpoints `DIR/checkpoint-N/`: `checkpoint-0` before training, then the weights after step N
when N is a multiple of `checkpoint_freq`, and after every other step into `checkpoint--1`
("the latest"). The bot rebuilds the network the config describes with OpenSpiel's own
`Model.build_model` (Flax linen or NNX, `nn_api_version`), restores the checkpoint into it, and
searches with `mcts.MCTSBot` over `evaluator.AlphaZeroEvaluator`, configured as OpenSpiel's
evaluation games configure it (`alpha_zero._init_bot(..., evaluation=True)`): PUCT selection,
no Dirichlet noise, no MCTS-Solver, chance nodes sampled through; and it plays as those games do
after the temperature drop, OpenSpiel's `SearchNode.best_child`: the most visited root move,
except that a move ending the game ranks by its result first. The search's randomness (the
shuffle of each new node's children, the chance samples) comes from the seed.

Two things differ from OpenSpiel's evaluation games, neither in what a move is worth:

- Inference is compiled: OpenSpiel's `Model.inference` is called through `jax.jit` (the same
  function; the tests hold it to OpenSpiel's call within 1e-6) and returns numpy arrays, which the
  evaluator indexes in nanoseconds instead of the ~120 us of a JAX element. Measured on
  connect_four with an untrained 128x2 MLP (NNX), 2026-11-25: OpenSpiel's call 5.5 ms; the bot
  runs about 4,600 simulations per CPU-second compiled, 89 uncompiled. `jit=False` runs
  OpenSpiel's call unchanged.
- `seconds` bounds a move by the clock, as the `mcts` bot's does (OpenSpiel's Python MCTS has no
  clock): the search loop below is OpenSpiel's `MCTSBot.mcts_search` without MCTS-Solver (off
  here) with a clock read before every simulation; the tests check that without the clock it
  builds the same tree as OpenSpiel's. Without `seconds` the bot runs OpenSpiel's loop itself.

The trainer's dependencies (JAX, Flax, Optax, chex, Orbax) are the `alphazero` extra; without
them the bot is refused, the reason naming the extra. The first bot of a process takes 4-5 s
(JAX starting); later checkpoints about 0.3 s (build, restore, compile). Loaded networks are kept
per process (`_MODELS`), so a tournament that builds a bot for every game restores and compiles
each checkpoint once per worker.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import importlib.util
import json
import logging
import math
import re
import time
import warnings
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from spiel_bounded.bots.checks import CheckedBot
from spiel_bounded.bots.cpp_mcts import MIN_SIMULATIONS
from spiel_bounded.bots.spec import SEED_PARAM, BotSpec
from spiel_bounded.games import GameInfo, Requirements, game_description, game_key, load_game
from spiel_bounded.params import (
    FLAG,
    OPTIONAL_POSITIVE,
    Number,
    check_fields,
    declared,
    pick,
    required_setting,
    setting,
)

ALPHAZERO_EXTRA: Final = "pip install 'spiel-bounded[alphazero]'"
EXTRA_MODULES: Final = ("jax", "flax", "optax", "chex", "orbax.checkpoint")
"""What OpenSpiel's AlphaZero imports beyond open_spiel itself."""

ALPHAZERO_GAMES: Final = Requirements(chance=True, intermediate_rewards=False)
"""What OpenSpiel's AlphaZero plays: two players, sequential, rewards only at the end (its
trainer and `AlphaZeroEvaluator` refuse the rest), zero-sum (the evaluator values a position
`[v, -v]`), chance nodes sampled through, perfect information (the search clones states)."""

EXPECTED: Final = (
    "the output directory of OpenSpiel's JAX AlphaZero (python -m "
    "open_spiel.python.examples.alpha_zero --path=DIR), holding config.json and Orbax "
    "checkpoints checkpoint-N/, or one of its checkpoint-N directories"
)
CONFIG_KEYS: Final = (
    "game",
    "nn_api_version",
    "nn_model",
    "nn_width",
    "nn_depth",
    "observation_shape",
    "output_size",
    "weight_decay",
    "learning_rate",
    "max_simulations",
    "uct_c",
)
"""The keys of config.json the bot reads (`alpha_zero.Config` fields)."""

_CHECKPOINT_DIR: Final = re.compile(r"checkpoint-(-?\d+)")
_MODELS_KEPT: Final = 4


def missing_extra() -> str:
    """Why the `alphazero` extra is not usable ("" when every module it needs is found)."""
    absent = []
    for name in EXTRA_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a missing parent package, or a module set to None
            found = False
        if not found:
            absent.append(name)
    if not absent:
        return ""
    return (
        f"it needs OpenSpiel's AlphaZero dependencies, the alphazero extra ({', '.join(absent)} "
        f"not installed): {ALPHAZERO_EXTRA}"
    )


def _refuse(info: GameInfo) -> str:
    return missing_extra()


def _path_text(value: Any) -> str:
    if isinstance(value, Path):
        value = str(value)
    if not isinstance(value, str) or not value:
        raise ValueError(f"must be a path ({EXPECTED}); got {value!r}")
    return value


@dataclass(frozen=True, kw_only=True)
class AlphaZeroSettings:
    """Settings of the `alphazero` bot."""

    checkpoint: str = required_setting(
        "the AlphaZero output directory (its latest checkpoint) or one checkpoint-N directory "
        "in it",
        _path_text,
    )
    simulations: int | None = setting(
        None,
        "MCTS simulations per move (None: the checkpoint's max_simulations)",
        Number(minimum=MIN_SIMULATIONS, integer=True, optional=True),
    )
    uct_c: float | None = setting(
        None, "PUCT exploration constant (None: the checkpoint's uct_c)", OPTIONAL_POSITIVE
    )
    seconds: float | None = setting(
        None,
        "wall-clock limit per move; when set, simulations is ignored (as for mcts) but at least "
        "the 2 a move needs are run (None: simulations only)",
        OPTIONAL_POSITIVE,
    )
    jit: bool = setting(
        True, "compile the network's inference with jax.jit (False: OpenSpiel's own call)", FLAG
    )

    def __post_init__(self) -> None:
        check_fields(self)


# -- the trainer's files --------------------------------------------------------------------------


@dataclass(frozen=True)
class AlphaZeroCheckpoint:
    """One checkpoint of an AlphaZero training run, found and checked (nothing loaded yet).

    Attributes:
        directory: The run's output directory (`config.json`, `checkpoint-N/`).
        path: The checkpoint directory loaded.
        config: `config.json` as written by the trainer (`alpha_zero.Config`).
    """

    directory: Path
    path: Path
    config: Mapping[str, Any] = field(repr=False)

    @property
    def step(self) -> int:
        """N of `checkpoint-N` (-1: the trainer's "latest", a step not a multiple of
        `checkpoint_freq`)."""
        match = _CHECKPOINT_DIR.fullmatch(self.path.name)
        assert match is not None
        return int(match.group(1))

    @property
    def game(self) -> str:
        """The game string the network was trained on."""
        return str(self.config["game"])


def find_checkpoint(path: str | Path) -> AlphaZeroCheckpoint:
    """The checkpoint at `path`: a `checkpoint-N` directory, or the run's output directory, of
    which the latest checkpoint is taken (the one Orbax committed last).

    Raises:
        ValueError: `path` does not exist or is not such a directory, config.json is missing, not
            JSON or lacks a key the bot reads, or the run holds no checkpoint. The message names
            the path and what was expected.
    """
    given = Path(path).expanduser()
    if not given.exists():
        raise ValueError(f"alphazero checkpoint {str(given)!r} does not exist; expected {EXPECTED}")
    if not given.is_dir():
        raise ValueError(f"alphazero checkpoint {str(given)!r} is a file; expected {EXPECTED}")
    named = _CHECKPOINT_DIR.fullmatch(given.name) is not None
    directory = given.parent if named else given
    config = _read_config(directory, given)
    chosen = given if named else _latest(directory)
    return AlphaZeroCheckpoint(directory=directory, path=chosen, config=config)


def _read_config(directory: Path, given: Path) -> dict[str, Any]:
    path = directory / "config.json"
    if not path.is_file():
        where = "its parent directory" if directory != given else str(given)
        raise ValueError(
            f"alphazero checkpoint {str(given)!r}: no config.json in {where}; expected {EXPECTED}"
        )
    try:
        config = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(
            f"alphazero checkpoint {str(given)!r}: cannot read {path} ({error}); expected the "
            "config.json OpenSpiel's AlphaZero writes"
        ) from None
    missing = [key for key in CONFIG_KEYS if not isinstance(config, dict) or key not in config]
    if missing:
        raise ValueError(
            f"alphazero checkpoint {str(given)!r}: {path} lacks {', '.join(missing)}; expected "
            "the config.json of OpenSpiel 2's JAX AlphaZero (alpha_zero.Config)"
        )
    return config


def _latest(directory: Path) -> Path:
    found = [
        child
        for child in directory.iterdir()
        if child.is_dir() and _CHECKPOINT_DIR.fullmatch(child.name)
    ]
    if not found:
        raise ValueError(
            f"alphazero checkpoint {str(directory)!r} holds config.json but no checkpoint-N "
            f"directory (the trainer writes checkpoint-0 when it starts); expected {EXPECTED}"
        )
    # checkpoint--1 is rewritten after every step that is not a multiple of checkpoint_freq, so
    # the step numbers alone do not say which is newest: the commit time does.
    return max(found, key=lambda child: (_committed(child), int(child.name.split("-", 1)[1])))


def _committed(checkpoint: Path) -> int:
    """When Orbax committed the checkpoint (ns), else the directory's modification time."""
    try:
        metadata = json.loads((checkpoint / "_CHECKPOINT_METADATA").read_text())
        return int(metadata["commit_timestamp_nsecs"])
    except (OSError, ValueError, KeyError, TypeError):
        return checkpoint.stat().st_mtime_ns


def check_game(checkpoint: AlphaZeroCheckpoint, game: pyspiel.Game) -> None:
    """`ValueError` unless the checkpoint was trained on `game` (name and parameters, defaults
    included) with the observation shape and action count the game has."""
    where = f"alphazero checkpoint {str(checkpoint.path)!r}"
    try:
        trained = load_game(checkpoint.game)
    except ValueError as error:
        raise ValueError(
            f"{where}: its config.json names a game that does not load: {error}"
        ) from None
    if game_key(trained) != game_key(game):
        raise ValueError(
            f"{where} was trained on {game_description(trained)} (config.json 'game'), but the "
            f"bot was asked to play {game_description(game)}; load it for "
            f"{game_description(trained)}, or train a network on {game_description(game)}"
        )
    shape = list(game.observation_tensor_shape())
    actions = game.num_distinct_actions()
    config = checkpoint.config
    if list(config["observation_shape"]) != shape or config["output_size"] != actions:
        raise ValueError(
            f"{where}: config.json says observations of shape {config['observation_shape']} and "
            f"{config['output_size']} actions, but {game_description(game)} has {shape} and "
            f"{actions}"
        )


# -- loading the network ---------------------------------------------------------------------


class _CompiledModel:
    """OpenSpiel's `Model.inference` under `jax.jit`, returning numpy (see the module notes).

    The optimiser's state, which inference never reads, is dropped from what each call passes.
    """

    def __init__(self, model: Any) -> None:
        import jax

        def inference(state: Any, observation: Any, mask: Any) -> Any:
            view = copy.copy(model)  # the same model class and code, over the traced state
            view._state = state
            return view.inference(observation, mask)

        self._state = model._state.replace(opt_state=None)
        self._inference = jax.jit(inference)

    def inference(self, observation: Any, legals_mask: Any) -> tuple[Any, np.ndarray]:
        value, policy = self._inference(self._state, observation, legals_mask)
        return np.asarray(value), np.asarray(policy)


_MODELS: OrderedDict[tuple[str, int, bool], Any] = OrderedDict()
"""Loaded networks by (checkpoint path, commit time, jit); the newest `_MODELS_KEPT`."""


def load_model(checkpoint: AlphaZeroCheckpoint, game: pyspiel.Game, *, jit: bool = True) -> Any:
    """The checkpoint's network as an object with OpenSpiel's `inference(observation, mask) ->
    (value, policy)`, compiled and warmed up on the game's first position when `jit`.

    Raises:
        ImportError: The alphazero extra is missing (the message gives the pip command).
        ValueError: The checkpoint cannot be restored into the network config.json describes
            (a corrupt or foreign checkpoint; the message names it).
    """
    key = (str(checkpoint.path.resolve()), _committed(checkpoint.path), jit)
    if key in _MODELS:
        _MODELS.move_to_end(key)
        return _MODELS[key]
    model = _restore(checkpoint)
    if jit:
        model = _CompiledModel(model)
        state = game.new_initial_state()
        model.inference(state.observation_tensor(), state.legal_actions_mask())  # compile now
    _MODELS[key] = model
    while len(_MODELS) > _MODELS_KEPT:
        _MODELS.popitem(last=False)
    return model


def import_dependency(name: str) -> Any:
    """The module `name` of OpenSpiel's AlphaZero or what it needs; an `ImportError` that names
    the extra to install when it is missing or broken."""
    try:
        with warnings.catch_warnings():  # model_nnx / model_linen warn which API is used
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except ImportError as error:
        raise ImportError(
            f"the alphazero bot needs OpenSpiel's AlphaZero dependencies ({error}); install the "
            f"extra: {ALPHAZERO_EXTRA}"
        ) from error


@contextlib.contextmanager
def _quiet_absl() -> Iterator[None]:
    """Orbax logs every checkpointer it makes and every restore at INFO through absl, and JAX
    logs its missing TPU backend on first use; a bot prints nothing."""
    loggers = [logging.getLogger(name) for name in _CHATTY_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(max(level, logging.WARNING))
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


_CHATTY_LOGGERS: Final = ("absl", "jax._src.xla_bridge")


def _restore(checkpoint: AlphaZeroCheckpoint) -> Any:
    config = checkpoint.config
    for module in EXTRA_MODULES:
        import_dependency(module)
    utils = import_dependency("open_spiel.python.algorithms.alpha_zero.utils")
    where = f"alphazero checkpoint {str(checkpoint.path)!r}"
    try:
        with warnings.catch_warnings(), _quiet_absl():
            warnings.simplefilter("ignore")
            library = utils.api_selector(config["nn_api_version"])
            model = library.Model.build_model(
                config["nn_model"],
                config["observation_shape"],
                config["output_size"],
                config["nn_width"],
                config["nn_depth"],
                config["weight_decay"],
                config["learning_rate"],
                str(checkpoint.directory.resolve()),  # Orbax refuses a relative path
                decouple_weight_decay=bool(config.get("decouple_weight_decay", False)),
            )
    except ValueError as error:
        raise ValueError(
            f"{where}: config.json describes a network OpenSpiel cannot build: {error}"
        ) from None
    try:
        with _quiet_absl():
            model.load_checkpoint(checkpoint.step)
    except Exception as error:  # Orbax and TensorStore raise many kinds
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ValueError(
            f"cannot restore {where}: {type(error).__name__}: {message}; expected an Orbax "
            "checkpoint written by OpenSpiel's JAX AlphaZero for the network its config.json "
            f"describes ({config['nn_api_version']} {config['nn_model']}, width "
            f"{config['nn_width']}, depth {config['nn_depth']})"
        ) from None
    return model


# -- the search -----------------------------------------------------------------------------------


class _AlphaZeroMCTS(mcts.MCTSBot):
    """OpenSpiel's `MCTSBot` as its AlphaZero evaluation games configure it, with a clock."""

    def __init__(
        self,
        game: pyspiel.Game,
        evaluator: Any,
        *,
        uct_c: float,
        simulations: int,
        seconds: float | None,
        seed: int,
    ) -> None:
        super().__init__(
            game,
            uct_c,
            simulations,
            evaluator,
            solve=False,
            random_state=np.random.RandomState(seed),
            child_selection_fn=mcts.SearchNode.puct_value,
            dirichlet_noise=None,
            verbose=False,
            dont_return_chance_node=True,
        )
        self.seconds = seconds

    def mcts_search(self, state: pyspiel.State) -> Any:
        if self.seconds is None:
            return super().mcts_search(state)
        return self.timed_search(state, time.perf_counter() + self.seconds)

    def timed_search(
        self, state: pyspiel.State, deadline: float, max_simulations: float = math.inf
    ) -> Any:
        """OpenSpiel's `mcts_search` (solve off) until `deadline` (perf_counter seconds) or
        `max_simulations`, whichever comes first, but never fewer than `MIN_SIMULATIONS`."""
        root = mcts.SearchNode(None, state.current_player(), 1)
        while root.explore_count < MIN_SIMULATIONS or (
            root.explore_count < max_simulations and time.perf_counter() < deadline
        ):
            visit_path, working_state = self._apply_tree_policy(root, state)
            if working_state.is_terminal():
                returns = working_state.returns()
                visit_path[-1].outcome = returns
            else:
                returns = self.evaluator.evaluate(working_state)
            while visit_path:
                # A chance node's reward is its decision-making ancestor's, as in OpenSpiel.
                decision = -1
                while visit_path[decision].player == pyspiel.PlayerId.CHANCE:
                    decision -= 1
                target = returns[visit_path[decision].player]
                node = visit_path.pop()
                node.total_reward += target
                node.explore_count += 1
        return root


class AlphaZeroBot(CheckedBot):
    """A checkpoint of OpenSpiel's AlphaZero behind the state check every bot here makes.

    Attributes:
        checkpoint: The checkpoint loaded.
        simulations: Simulations per move (when `seconds` is None).
        uct_c: The PUCT constant.
        seconds: The clock per move, or None.
    """

    def __init__(self, game: pyspiel.Game, settings: AlphaZeroSettings, *, seed: int = 0) -> None:
        checkpoint = find_checkpoint(settings.checkpoint)
        check_game(checkpoint, game)
        model = load_model(checkpoint, game, jit=settings.jit)
        evaluator_lib = import_dependency("open_spiel.python.algorithms.alpha_zero.evaluator")
        config = checkpoint.config
        simulations = settings.simulations
        uct_c = settings.uct_c
        search = _AlphaZeroMCTS(
            game,
            evaluator_lib.AlphaZeroEvaluator(game, model),
            uct_c=float(uct_c if uct_c is not None else config["uct_c"]),
            simulations=max(
                int(simulations if simulations is not None else config["max_simulations"]),
                MIN_SIMULATIONS,
            ),
            seconds=settings.seconds,
            seed=seed,
        )
        super().__init__(search, game, "alphazero")
        self.checkpoint = checkpoint
        self.simulations: int = search.max_simulations
        self.uct_c: float = search.uct_c
        self.seconds = settings.seconds


def _build(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    settings = AlphaZeroSettings(**pick(AlphaZeroSettings, params))
    return AlphaZeroBot(game, settings, seed=params["seed"])


SPECS: Final = (
    BotSpec(
        name="alphazero",
        description=(
            "a network trained by OpenSpiel's JAX AlphaZero, playing with OpenSpiel's MCTS and "
            "AlphaZero evaluator as its evaluation games do (PUCT, no noise, the most visited "
            "move)"
        ),
        params={**declared(AlphaZeroSettings), **SEED_PARAM},
        requirements=ALPHAZERO_GAMES,
        build=_build,
        refuse=_refuse,
        plays_note="with a checkpoint trained on that game (and the alphazero extra)",
    ),
)
