"""spiel_bounded: bounded game-tree search bots for OpenSpiel.

Load a bot by name with `load_bot`, list them with `list_bots` (readable: `describe_bots`, or
`python -m spiel_bounded bots`), or call a search directly.
Importing the package also registers the synthetic game `bounded_random_tree` with OpenSpiel.
"""

from spiel_bounded import synthetic as _synthetic  # noqa: F401  (registers the game)
from spiel_bounded.bots import SearchBot
from spiel_bounded.bots.babmcts import BABMCTSBot
from spiel_bounded.evaluators import Evaluator, make_evaluator
from spiel_bounded.games import load_game
from spiel_bounded.limits import Limits
from spiel_bounded.registry import bots_for, describe_bots, list_bots, load_bot, register
from spiel_bounded.result import BoundsOn, Interval, SearchResult, SearchStats, StopReason
from spiel_bounded.search.alphabeta import (
    AlphaBetaSettings,
    bounded_ab,
    bounded_star1,
    bounded_star2,
    paranoid,
)
from spiel_bounded.search.babmcts import babmcts, make_tree
from spiel_bounded.search.babmcts.common import BABMCTSSettings, BABMCTSTreeBase, MCTSStats
from spiel_bounded.search.babmcts.python_tree import BABMCTSTree
from spiel_bounded.search.brs import brs_plus
from spiel_bounded.search.maxn import MaxnSettings, directed_offensive, maxn
from spiel_bounded.search.pns import BoundedPNSSettings, PNSSettings, bounded_pns, pns

__all__ = [
    "AlphaBetaSettings",
    "BABMCTSBot",
    "BABMCTSSettings",
    "BABMCTSTree",
    "BABMCTSTreeBase",
    "BoundedPNSSettings",
    "BoundsOn",
    "Evaluator",
    "Interval",
    "Limits",
    "MCTSStats",
    "MaxnSettings",
    "PNSSettings",
    "SearchBot",
    "SearchResult",
    "SearchStats",
    "StopReason",
    "babmcts",
    "bots_for",
    "bounded_ab",
    "bounded_pns",
    "bounded_star1",
    "bounded_star2",
    "brs_plus",
    "describe_bots",
    "directed_offensive",
    "list_bots",
    "load_bot",
    "load_game",
    "make_evaluator",
    "make_tree",
    "maxn",
    "paranoid",
    "pns",
    "register",
]
