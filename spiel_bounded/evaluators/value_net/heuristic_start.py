"""A network that starts as the amazons heuristic, for a training loop to improve on.

The amazons heuristic (`evaluators.heuristics_amazons`) scores a position, from player 0's side,
as a linear function of the territory planes a network with `inputs = "territory"` derives:

    s = AMAZONS_TERRITORY * (sum of plane 0 - sum of plane 1) + (sum of plane 3 - sum of plane 4)

So a dense network can equal it exactly. In the first layer, unit 0 computes relu(s / scale) and
unit 1 relu(-s / scale); every later layer passes the two on (weight 1 from itself, 0 from the
others); the output is unit 0 minus unit 1, which is s / scale. Every other unit keeps a random
initialisation but reaches the output with weight 0, so it changes nothing until training moves
it. With `scale = AMAZONS_SCALE` the network's value for player 0 is tanh(s / AMAZONS_SCALE), the
heuristic's `0.95 tanh(s / AMAZONS_SCALE)` without its 0.95: the same order of positions, so an
alpha-beta search with either chooses the same moves. Training then learns a correction of the
heuristic rather than a value from nothing (`scripts/make_heuristic_network.py`).
"""

from __future__ import annotations

import numpy as np

from spiel_bounded.evaluators.heuristics_amazons import AMAZONS_PLANE_WEIGHTS, AMAZONS_SCALE
from spiel_bounded.evaluators.value_net.layout import Layout
from spiel_bounded.evaluators.value_net.territory import PLANES


def heuristic_params(layout: Layout, seed: int) -> dict[str, np.ndarray]:
    """Parameters of `layout`'s network whose value is the amazons heuristic's (module doc).

    Raises:
        ValueError: The layout is not a dense network of at least one layer of two or more
            units reading the territory planes of amazons (`inputs = "territory"`).
    """
    model, derived = layout.model, layout.derived
    if (
        model.kind != "mlp"
        or model.depth < 1
        or model.width < 2
        or model.inputs != "territory"
        or derived is None
        or layout.outputs != 1
    ):
        raise ValueError(
            "only the amazons heuristic can start a network, one of [model] kind = mlp, depth "
            '>= 1, width >= 2 and inputs = "territory" (the planes the heuristic counts); got '
            f"kind = {model.kind}, depth = {model.depth}, width = {model.width}, inputs = "
            f"{model.inputs}"
        )
    rng = np.random.default_rng(seed)
    params: dict[str, np.ndarray] = {}
    for name, shape in layout.shapes().items():
        if name.endswith("/bias"):
            params[name] = np.zeros(shape, np.float32)
        else:  # LeCun normal, Flax's default for dense kernels
            params[name] = rng.normal(0.0, 1.0 / np.sqrt(shape[0]), shape).astype(np.float32)
    cells = derived.size // PLANES
    first = np.repeat(np.asarray(AMAZONS_PLANE_WEIGHTS, np.float32), cells) / AMAZONS_SCALE
    start = layout.dense_input - derived.size  # the derived planes come last
    kernel = params["dense_0/kernel"]
    kernel[:, :2] = 0.0
    kernel[start:, 0] = first
    kernel[start:, 1] = -first
    for index in range(1, model.depth):
        kernel = params[f"dense_{index}/kernel"]
        kernel[:, :2] = 0.0
        kernel[0, 0] = kernel[1, 1] = 1.0
    out = params["out/kernel"]
    out[:] = 0.0
    out[0, 0], out[1, 0] = 1.0, -1.0
    return params
