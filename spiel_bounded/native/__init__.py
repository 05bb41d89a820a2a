"""The native engine: the package's searches in C++ over OpenSpiel's own C++ states.

`_engine` is a pybind11 extension built at install time against the C++ headers the `open_spiel`
wheel ships (`setup.py`). It takes `pyspiel.State` objects as OpenSpiel's `State` directly and
resolves OpenSpiel's symbols from the `pyspiel.so` Python already loaded: that library is opened
with `RTLD_LOCAL`, so it is reopened here with `RTLD_GLOBAL | RTLD_NOLOAD` (no second copy, no
second game registry) before the extension is imported.

Where the extension was not built (no C++ compiler at install time), does not load, or is
disabled (`SPIEL_BOUNDED_NATIVE=0`), the package runs on its Python engines: `engine="auto"` falls
back to them with one warning that says why, and `engine="native"` is an error that says the same.
"""

from __future__ import annotations

import ctypes
import os
import time
import warnings
from collections.abc import Callable
from functools import cache
from types import ModuleType
from typing import Any, Final

import pyspiel

from spiel_bounded.limits import Budget, Limits

ENGINES: Final = ("auto", "native", "python")
"""Values of every search's `engine` setting: `auto` runs the native engine when it is built and
the evaluator has a native form (else the Python engine), `native` requires it (a Python
evaluator is then called back from C++), `python` runs the Python reference engine."""


DISABLE_VARIABLE: Final = "SPIEL_BOUNDED_NATIVE"
"""Set to 0 in the environment, the native engine counts as unavailable (the Python engines run
everywhere; "native" is an error)."""


class NativeEngineWarning(UserWarning):
    """Issued once when `engine="auto"` falls back to the Python engines because the native
    engine is not available."""


@cache
def _load() -> tuple[ModuleType | None, str]:
    """The extension module, or None and why it is unavailable."""
    if os.environ.get(DISABLE_VARIABLE, "") == "0":
        return None, f"the native engine is disabled ({DISABLE_VARIABLE}=0)"
    try:
        ctypes.CDLL(pyspiel.__file__, mode=os.RTLD_GLOBAL | os.RTLD_NOLOAD)
        from spiel_bounded.native import _engine  # type: ignore[attr-defined]
    except ImportError as error:
        return None, f"the native engine is unavailable ({error}); reinstall with a C++17 compiler"
    except OSError as error:
        return None, f"the native engine is unavailable: cannot reopen pyspiel.so ({error})"
    return _engine, ""


def available() -> bool:
    """Whether the native engine is built and loads."""
    return _load()[0] is not None


def module() -> ModuleType | None:
    """The extension module, or None where it is unavailable (`unavailable_reason` says why)."""
    return _load()[0]


def unavailable_reason() -> str:
    """Why the native engine is unavailable ("" when it is available)."""
    return _load()[1]


def engine_module(algorithm: str) -> ModuleType:
    """The extension module, for a search that was asked for the native engine.

    Raises:
        ValueError: The native engine is unavailable (the message says why).
    """
    module, reason = _load()
    if module is None:
        raise ValueError(
            f"{algorithm}: engine='native' was asked for, but {reason}; engine='auto' or "
            "'python' runs the Python engine"
        )
    return module


def check_engine(engine: str) -> str:
    """Returns `engine`, or raises `ValueError` listing the accepted values."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; accepted: {', '.join(ENGINES)}")
    return engine


def warn_fallback() -> None:
    """Says once, in one warning, that "auto" runs the Python engines and why."""
    _warn_once()


@cache
def _warn_once() -> None:
    warnings.warn(
        unavailable_reason() + "; running the Python engines", NativeEngineWarning, stacklevel=3
    )


def time_arguments(limits: Limits, budget: Budget, clock: Callable[[], float]) -> dict[str, Any]:
    """The `seconds` and `clock` keywords of a native search: what setting up (on `budget`) left
    of the time limit, and the clock, None for the engine's own steady clock when it is
    `time.perf_counter`."""
    seconds = None
    if limits.seconds is not None:
        seconds = max(limits.seconds - budget.elapsed(), 1e-9)
    return {"seconds": seconds, "clock": None if clock is time.perf_counter else clock}
