"""Search algorithms: pure functions over pyspiel states."""
