"""The optional `jax` extra: whether it is installed, and the error that says how to get it."""

from __future__ import annotations

import importlib.util
import logging
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


class _NoBackendProbe(logging.Filter):
    """Drops JAX's INFO line `Unable to initialize backend 'tpu': ...`, which every run on a
    machine without that accelerator prints: JAX then runs on the backends it found. Its
    warnings and errors are kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or not record.getMessage().startswith(
            "Unable to initialize backend"
        )


def quiet_backend_probe() -> None:
    """Keeps JAX's probe for absent accelerators out of a program's output (`_NoBackendProbe`)."""
    logging.getLogger("jax._src.xla_bridge").addFilter(_NoBackendProbe())
