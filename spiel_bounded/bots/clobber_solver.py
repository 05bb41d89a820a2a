"""`clobber_solver`: perfect play of clobber, and perfect play where it can be found in time.

At every move it solves the position (the native solver of `judges.clobber`, whose table it
keeps through the game) and plays the first winning move found, the moves that leave the
opponent the fewest replies first. Every move of a lost position loses against perfect play, so
there the bot plays for the opponent's errors (`swindle`): by default the move whose loss took
the most positions to prove ("work"); or the move after which the largest share of the
opponent's replies throws the win away ("errors"); or `bounded_ab`'s move with `evaluator`
("search", with a time or node budget only).

Unlimited (`seconds` and `nodes` None), that is perfect play: on the default 5 x 6 board from
openings of 6 random plies its moves took 12.0 ms on average over 400 games (with `seconds` 60,
the slowest 0.6 s; `results/clobber_perfect_play.md`). With `seconds`, the solver gets
`solve_share` of them, with `nodes` that many positions; when it has not solved the position by
then, `bounded_ab` with `evaluator` plays the move in the rest of the time (and as many
positions). A tournament's `seconds_per_move` sets `seconds` when the bot leaves it out, so
perfect play there needs a large `seconds`. clobber on boards of at most 64 cells, with the
native engine built; elsewhere the bot is refused with the reason.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from spiel_bounded.bots.alphabeta import SPECS as ALPHA_BETA_SPECS
from spiel_bounded.bots.checks import StateCheck, seat_bot
from spiel_bounded.bots.spec import EVALUATOR_PARAMS, SEED_PARAM, BotSpec
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM, GameInfo, load_game
from spiel_bounded.judges.clobber import ClobberSolver, check_clobber
from spiel_bounded.params import (
    OPTIONAL_POSITIVE,
    OPTIONAL_POSITIVE_INT,
    Number,
    OneOf,
    check_fields,
    checked,
    declared,
    pick,
    setting,
)

SWINDLES: Final = ("work", "errors", "search")
"""How the bot chooses among the moves of a lost position (`ClobberSolverSettings.swindle`)."""
BOUNDED_AB: Final = next(spec for spec in ALPHA_BETA_SPECS if spec.name == "bounded_ab")
"""The fallback's spec."""


@dataclass(frozen=True, kw_only=True)
class ClobberSolverSettings:
    seconds: float | None = setting(
        None,
        "seconds a move (None: unlimited, perfect play; a tournament's seconds_per_move sets it "
        "when given, so perfect play there needs a large value)",
        OPTIONAL_POSITIVE,
    )
    nodes: int | None = setting(
        None,
        "positions the solver searches a move at most (None: unlimited); when they run out, "
        "bounded_ab with `evaluator` plays the move, searching as many",
        OPTIONAL_POSITIVE_INT,
    )
    solve_share: float = setting(
        0.5,
        "the share of `seconds` the solver gets (0 < share < 1); when it has not solved the "
        "position by then, bounded_ab with `evaluator` plays in the rest",
        Number(minimum=0, maximum=1, strict=True),
    )

    swindle: str = setting(
        "work",
        "the move of a lost position: 'work' (its loss took the most positions to prove), "
        "'errors' (the largest share of the opponent's replies lose), 'search' (bounded_ab's "
        "move, with seconds or nodes only)",
        OneOf(SWINDLES),
    )

    def __post_init__(self) -> None:
        check_fields(self)
        if self.solve_share >= 1:
            raise ValueError(
                f"solve_share must be below 1 (the rest is bounded_ab's), got {self.solve_share}"
            )
        if self.swindle == "search" and self.seconds is None and self.nodes is None:
            raise ValueError(
                "swindle='search' needs seconds or nodes (unlimited, the bot has no bounded_ab)"
            )


class ClobberSolverBot(pyspiel.Bot):
    """Perfect play, or `fallback`'s move where the solver runs out of time.

    Attributes:
        solved: Moves played by the solver (in lost positions too, however `swindle` chose).
        searched: Moves played by the fallback where the solver ran out of budget.
    """

    def __init__(
        self, game: pyspiel.Game, settings: ClobberSolverSettings, fallback: pyspiel.Bot | None
    ) -> None:
        pyspiel.Bot.__init__(self)
        self.solver = ClobberSolver(game)
        share = settings.solve_share
        self.seconds = None if settings.seconds is None else settings.seconds * share
        # the rest of the move's time, for the fallback or for the swindle "errors"
        self.swindle_seconds = None if settings.seconds is None else settings.seconds * (1 - share)
        self.nodes = settings.nodes
        self.swindle = settings.swindle
        self.fallback = fallback
        self.state_check = StateCheck(game, "clobber_solver")  # seated by load_bot
        self.solved = 0
        self.searched = 0

    def step(self, state: pyspiel.State) -> int:
        self.state_check(state)
        found = self.solver.best_move(state, nodes=self.nodes, seconds=self.seconds)
        if found is not None:
            self.solved += 1
            move, value = found
            if value > 0 or self.swindle == "work":
                return move
            if self.swindle == "search":
                assert self.fallback is not None  # refused without a budget
                return int(self.fallback.step(state))
            return self._most_errors(state, move)
        assert self.fallback is not None  # only a budget runs out
        self.searched += 1
        return int(self.fallback.step(state))

    def _most_errors(self, state: pyspiel.State, work_move: int) -> int:
        """The move of lost `state` after which the largest share of the opponent's replies
        lose (ties: `work_move`, then OpenSpiel's order); `work_move` when the budget runs out."""
        deadline = None if self.swindle_seconds is None else time.monotonic() + self.swindle_seconds
        start = self.solver.nodes
        best, best_share = work_move, -1.0
        for move in state.legal_actions():
            seconds = None if deadline is None else deadline - time.monotonic()
            nodes = None if self.nodes is None else self.nodes - (self.solver.nodes - start)
            if (seconds is not None and seconds <= 0) or (nodes is not None and nodes <= 0):
                return work_move
            replies = self.solver.move_values(state.child(move), nodes=nodes, seconds=seconds)
            if replies is None:
                return work_move
            share = sum(value < 0 for value in replies.values()) / len(replies)
            if share > best_share or (share == best_share and move == work_move):
                best, best_share = move, share
        return best

    def restart_at(self, state: pyspiel.State) -> None:
        if self.fallback is not None:
            self.fallback.restart_at(state)

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        if self.fallback is not None:
            self.fallback.inform_action(state, player_id, action)


def _refuse(info: GameInfo) -> str:
    return check_clobber(load_game(info.description))


def _build(
    game: pyspiel.Game, info: GameInfo, player_id: int, params: dict[str, Any]
) -> pyspiel.Bot:
    settings = ClobberSolverSettings(**pick(ClobberSolverSettings, params))
    fallback = None
    if settings.seconds is not None or settings.nodes is not None:
        rest = 1 - settings.solve_share
        fallback_params = checked(
            BOUNDED_AB.params,
            {
                "seconds": None if settings.seconds is None else settings.seconds * rest,
                "nodes": settings.nodes,
                "evaluator": params["evaluator"],
                "rollouts": params["rollouts"],
                "seed": params["seed"],
            },
            "bot 'bounded_ab'",
        )
        fallback = seat_bot(
            BOUNDED_AB.build(game, info, player_id, fallback_params), "bounded_ab", player_id
        )
    return ClobberSolverBot(game, settings, fallback)


SPECS: Final = (
    BotSpec(
        name="clobber_solver",
        description=(
            "perfect clobber (solved exactly), or with `seconds`, bounded_ab's move where the "
            "solver runs out of time"
        ),
        params={**declared(ClobberSolverSettings), **EVALUATOR_PARAMS, **SEED_PARAM},
        requirements=TWO_PLAYER_ZERO_SUM,
        build=_build,
        refuse=_refuse,
        plays_note="clobber only (boards of at most 64 cells, with the native engine)",
    ),
)
