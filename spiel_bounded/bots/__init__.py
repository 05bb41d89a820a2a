"""Every bot as a `pyspiel.Bot`: the adapter over a search (`base`), what the registry knows of
a bot (`spec`), and one module per family declaring its bots (`alphabeta`, `babmcts`,
`openspiel`)."""

from spiel_bounded.bots.base import POLICIES, SearchBot, as_played, check_policy, choose_action

__all__ = ["POLICIES", "SearchBot", "as_played", "check_policy", "choose_action"]
