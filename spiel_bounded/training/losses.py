"""What training reports after each epoch."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class EpochLosses:
    """Mean losses after one epoch (epoch 0: before any step)."""

    epoch: int
    train: float
    validation: float


EpochDone = Callable[[EpochLosses], None]
"""Called after each epoch (progress display)."""
