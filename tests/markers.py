"""Markers the test modules share."""

from __future__ import annotations

import pytest

from spiel_bounded import native
from spiel_bounded.evaluators.value_net import jax_available

needs_jax = pytest.mark.skipif(
    not jax_available(), reason="the jax extra is not installed: pip install '.[jax]'"
)
"""Skips a test that trains or batch-evaluates a network when the jax extra is absent."""

needs_native = pytest.mark.skipif(not native.available(), reason=native.unavailable_reason())
"""Skips a test of the native engine where it is not built."""
