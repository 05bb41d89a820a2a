"""Outside judges of the package's play: GNU Backgammon's equity for backgammon moves."""
