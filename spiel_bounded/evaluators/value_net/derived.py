"""Inputs a network derives from the observation (`ModelConfig.inputs`) and reads after the
mover bits: threat planes of a line game (`threats.py`), connections of a hex board
(`connections.py`), territory of an amazons board (`territory.py`) or contacts and groups of a
clobber board (`contacts.py`). They are functions of the
observation computed inside the network, so stored features, datasets and mirror images are the
same whatever a network derives."""

from __future__ import annotations

from typing import Any, Final, Protocol

import pyspiel

from spiel_bounded.evaluators.value_net.connections import connection_board
from spiel_bounded.evaluators.value_net.contacts import contact_board
from spiel_bounded.evaluators.value_net.territory import territory_board
from spiel_bounded.evaluators.value_net.threats import threat_lines

MODEL_INPUTS: Final = ("observation", "threats", "connections", "territory", "contacts")
"""What a network reads: the observation and the mover bits, or those and derived inputs."""


class DerivedInputs(Protocol):
    """What a network derives from a game's observations."""

    @property
    def size(self) -> int:
        """Entries a position has."""
        ...

    def planes(self, observations: Any, xp: Any = ...) -> Any:
        """The derived inputs `[batch, size]` (float32) of observations `[batch, ...]` (the
        game's flat observations, planes first), with `xp` numpy or `jax.numpy`."""
        ...


def derived_inputs(game: pyspiel.Game, inputs: str) -> DerivedInputs | None:
    """What a network reading `inputs` derives on `game` (None for "observation");
    `ValueError` naming what is accepted for a game the inputs cannot read."""
    if inputs == "threats":
        return threat_lines(game)
    if inputs == "connections":
        return connection_board(game)
    if inputs == "territory":
        return territory_board(game)
    if inputs == "contacts":
        return contact_board(game)
    return None
