"""The optional `jax` extra: whether it is installed, and the error that says how to get it."""

from __future__ import annotations

import importlib.util
from typing import Final

JAX_EXTRA: Final = "pip install 'spiel-bounded[jax]'"


def jax_available() -> bool:
    """True when JAX, Flax and Optax can be imported."""
    return all(importlib.util.find_spec(name) is not None for name in ("jax", "flax", "optax"))


def missing_jax(error: ImportError) -> ImportError:
    """The error raised when training or batch evaluation is asked for without the extra."""
    return ImportError(
        f"training or batch-evaluating a value network needs JAX, Flax and Optax, which are not "
        f"installed ({error}); install the extra: {JAX_EXTRA}"
    )
