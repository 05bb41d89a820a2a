"""Judges of the package's play: GNU Backgammon's equity for backgammon moves, and perfect play of
connect_four and clobber (exact solvers, `judges.exact`)."""
