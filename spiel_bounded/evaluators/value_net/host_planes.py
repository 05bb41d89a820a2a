"""Derived inputs that numpy-level code computes (the native engine's kernels), from numpy or
from inside a traced JAX computation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def host_planes(
    observations: Any, xp: Any, size: int, compute: Callable[[np.ndarray], np.ndarray]
) -> Any:
    """`compute` of float32 `observations` `[batch, ...]` -> `[batch, size]`: called directly
    with `xp` numpy, called back from the traced computation with `jax.numpy`."""
    if xp is np:
        return compute(np.asarray(observations, np.float32))
    import jax

    return jax.pure_callback(
        lambda batch: compute(np.asarray(batch, np.float32)),
        jax.ShapeDtypeStruct((observations.shape[0], size), np.float32),
        observations,
        vmap_method="broadcast_all",
    )
