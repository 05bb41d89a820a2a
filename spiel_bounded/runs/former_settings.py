"""Settings that records made before the native engine carried: how old results still count.

Tournament games (`arena.schedule`) and sweep records (`experiments.runner`) each carry a hash of
every parameter of their bot or search, defaults filled in. Issue 38 gave the alpha-beta family,
the max^n family, `pns`, `bounded_pns` and `rivest` the parameter `engine` (and the alpha-beta
searches' `tt_capacity` the default None), which changed the hash of every record made before.
Those records all ran on the Python engine, so a bot or search pinned to `engine = "python"`
(with `tt_capacity` None or 500,000) plays exactly as they did: `before_engines` gives the
parameters they carried, and both runners accept their hash beside today's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

ENGINE_ADDED: Final = (
    "bounded_ab",
    "bounded_star1",
    "bounded_star2",
    "paranoid",
    "maxn",
    "brs_plus",
    "offensive",
    "mp_mix",
    "pns",
    "bounded_pns",
    "rivest",
)
"""The bots and searches that gained the `engine` parameter with the native engine."""

FORMER_TT_CAPACITY: Final = 500_000
"""The alpha-beta searches' `tt_capacity` default before it became None (which is still this
many entries on the Python engine)."""


def before_engines(name: str, full: Mapping[str, Any]) -> dict[str, Any] | None:
    """The parameters that records of `name` carried before it gained `engine`, for today's
    full parameters `full`; None when those play differently (another engine: the same moves at
    a fixed depth, more nodes at a time limit) or `name` gained no engine."""
    if name not in ENGINE_ADDED or full.get("engine") != "python":
        return None
    before = {key: value for key, value in full.items() if key != "engine"}
    if "tt_capacity" in before and before["tt_capacity"] is None:
        before["tt_capacity"] = FORMER_TT_CAPACITY
    return before
