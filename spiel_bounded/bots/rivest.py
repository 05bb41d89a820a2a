"""`rivest`: best-first search by min/max approximation (Rivest 1987).

The bot plays the search's own move: the root child with the best backed-up value.
"""

from __future__ import annotations

from typing import Final

from spiel_bounded.bots.spec import SearchSpec, search_bot
from spiel_bounded.games import TWO_PLAYER_ZERO_SUM
from spiel_bounded.search.rivest import RivestSettings, rivest

SPECS: Final = (
    search_bot(
        name="rivest",
        description=(
            "best-first search by min/max approximation (Rivest 1987): expands the tip the "
            "root's generalized-mean value depends on most; nodes = children generated"
        ),
        requirements=TWO_PLAYER_ZERO_SUM,
        search=SearchSpec(function=rivest, settings=RivestSettings),
        policy=False,
    ),
)
