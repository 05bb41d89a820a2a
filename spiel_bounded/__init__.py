"""spiel_bounded (temporary init)."""
