"""One declaration per setting: its default, one-line doc and check live on the dataclass field.

A settings dataclass declares each field with `setting(default, doc, check)` and calls
`check_fields(self)` in `__post_init__`. The registry reads the same declarations
(`declared(cls)`) to offer every field as a bot parameter, so a setting is stated once.

The checkers are small frozen dataclasses: calling one returns the accepted (normalised) value
or raises `ValueError` saying what is accepted; `accepted` says it for documentation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Final

import numpy as np

Checker = Callable[[Any], Any]

_PARAM_KEY: Final = "spiel_bounded.param"


@dataclass(frozen=True)
class Number:
    """Accepts a finite int or float (not bool) within the bounds; optionally None.

    Attributes:
        minimum: Smallest value accepted (None: no lower bound).
        maximum: Largest value accepted (None: no upper bound).
        strict: The minimum itself is refused.
        integer: Only integers are accepted (floats are refused, even 3.0, unless `lenient`).
        optional: None is accepted (and kept).
        lenient: Also accepts numpy numbers and, for an integer, a float with an integral value
            (game parameters arrive from OpenSpiel and numpy in those forms).
    """

    minimum: float | None = None
    maximum: float | None = None
    strict: bool = False
    integer: bool = False
    optional: bool = False
    lenient: bool = False

    @property
    def accepted(self) -> str:
        text = "an integer" if self.integer else "a number"
        if self.minimum is not None and self.maximum is not None and not self.strict:
            text += f" in [{self.minimum:g}, {self.maximum:g}]"
        else:
            if self.minimum is not None:
                text += f" {'>' if self.strict else '>='} {self.minimum:g}"
            if self.maximum is not None:
                text += f" <= {self.maximum:g}"
        return text + (" or None" if self.optional else "")

    def __call__(self, value: Any) -> Any:
        if value is None and self.optional:
            return None
        number = self._number(value)
        if (
            number is None
            or not math.isfinite(number)
            or (self.minimum is not None and number < self.minimum)
            or (self.strict and number == self.minimum)
            or (self.maximum is not None and number > self.maximum)
        ):
            raise ValueError(f"must be {self.accepted}, got {value!r}")
        return int(number) if self.integer else float(number)

    def _number(self, value: Any) -> int | float | None:
        if isinstance(value, bool | np.bool_):
            return None
        if self.lenient and isinstance(value, np.integer | np.floating):
            value = value.item()
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            if not self.integer:
                return value
            if self.lenient and value.is_integer():
                return int(value)
        return None


@dataclass(frozen=True)
class Flag:
    """Accepts True or False only (not 0, 1 or strings); with `zero_one`, 0 or 1 instead (the
    flags of OpenSpiel game parameters), returned as a bool."""

    zero_one: bool = False

    @property
    def accepted(self) -> str:
        return "0 or 1" if self.zero_one else "True or False"

    def __call__(self, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if self.zero_one:
            number = Number(integer=True, lenient=True)
            try:
                flag = number(value)
            except ValueError:
                flag = None
            if flag in (0, 1):
                return bool(flag)
        raise ValueError(f"must be {self.accepted}, got {value!r}")


@dataclass(frozen=True)
class OneOf:
    """Accepts one of the given strings.

    Attributes:
        options: The strings accepted.
        removed: `(value, why)` pairs of values accepted once: refusing one, the message adds
            `why` (what replaced it, say).
    """

    options: tuple[str, ...]
    removed: tuple[tuple[str, str], ...] = ()

    @property
    def accepted(self) -> str:
        return "one of " + ", ".join(self.options)

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str) or value not in self.options:
            why = dict(self.removed).get(value, "") if isinstance(value, str) else ""
            raise ValueError(f"must be {self.accepted}; got {value!r}" + (why and f": {why}"))
        return value


@dataclass(frozen=True)
class Text:
    """Accepts a non-empty string; with `pattern`, only one it matches in full.

    Attributes:
        pattern: A regular expression the whole string must match ("" : any).
        what: What is accepted, in words.
    """

    pattern: str = ""
    what: str = "a non-empty string"

    @property
    def accepted(self) -> str:
        return self.what

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str) or not value or not re.fullmatch(self.pattern or ".*", value):
            raise ValueError(f"must be {self.what}, got {value!r}")
        return value


@dataclass(frozen=True)
class OrNone:
    """Accepts None (kept: a setting not given, e.g. one that falls back on another section's) or
    what `check` accepts."""

    check: Checker

    @property
    def accepted(self) -> str:
        return f"{getattr(self.check, 'accepted', 'a value')} (or left out)"

    def __call__(self, value: Any) -> Any:
        return None if value is None else self.check(value)


@dataclass(frozen=True)
class Table:
    """Accepts a table (a mapping with string keys, e.g. a bot's parameters): a plain dict of it."""

    accepted: str = "a table"

    def __call__(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
            raise ValueError(f"must be {self.accepted}; got {value!r}")
        return dict(value)


NAME: Final = Text(r"[A-Za-z0-9_.-]+", "a name of letters, digits, '_', '-' and '.'")
"""A label or set name, which names files and table rows."""
NON_NEGATIVE: Final = Number(minimum=0)
POSITIVE: Final = Number(minimum=0, strict=True)
OPTIONAL_POSITIVE: Final = Number(minimum=0, strict=True, optional=True)
POSITIVE_INT: Final = Number(minimum=1, integer=True)
OPTIONAL_POSITIVE_INT: Final = Number(minimum=1, integer=True, optional=True)
NON_NEGATIVE_INT: Final = Number(minimum=0, integer=True)
SEED: Final = NON_NEGATIVE_INT
FLAG: Final = Flag()
TABLE: Final = Table()


def anything(value: Any) -> Any:
    """The checker of a setting that accepts any value."""
    return value


@dataclass(frozen=True)
class Param:
    """One declared setting.

    Attributes:
        default: The value when none is given.
        doc: One line for `list_bots()`, the manual and error messages.
        check: Returns the accepted (possibly normalised) value or raises `ValueError` saying
            what is accepted.
        required: The setting has no default: it must be given (a path to a file, say, that
            no default could name); `default` is then None and unused.
    """

    default: Any
    doc: str
    check: Checker = field(repr=False, default=anything)
    required: bool = False


def setting(default: Any, doc: str, check: Checker = anything) -> Any:
    """A dataclass field declared with its default, doc and check (see `declared`).

    `doc` is the field's one documentation, what `python -m spiel_bounded bots` shows: settings
    classes keep no `Attributes:` entry for such fields; more than one line's worth goes in a
    comment under the field.
    """
    metadata = {_PARAM_KEY: Param(default, doc, check)}
    if isinstance(default, dict | list | set):  # a fresh copy for every instance
        return field(default_factory=lambda: type(default)(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def required_setting(doc: str, check: Checker = anything) -> Any:
    """A dataclass field that has no default and must be given (see `Param.required`)."""
    return field(metadata={_PARAM_KEY: Param(None, doc, check, required=True)})


def declared(settings_type: type) -> dict[str, Param]:
    """The `Param` of every field of a settings dataclass declared with `setting`."""
    if not is_dataclass(settings_type):
        raise TypeError(f"{settings_type!r} is not a dataclass")
    return {
        item.name: item.metadata[_PARAM_KEY]
        for item in fields(settings_type)
        if _PARAM_KEY in item.metadata
    }


def check_fields(settings: Any) -> None:
    """Checks (and normalises) every declared field of a frozen settings instance.

    Raises:
        ValueError: `<Type>.<field> must be ..., got ...` for the first field refused.
    """
    for name, param in declared(type(settings)).items():
        try:
            value = param.check(getattr(settings, name))
        except ValueError as error:
            raise ValueError(f"{type(settings).__name__}.{name} {error}") from None
        object.__setattr__(settings, name, value)


def read_table(
    table: Any, settings_type: type, fail: Callable[[str, str], Exception]
) -> dict[str, Any]:
    """The keys `settings_type` declares, read from a config file's table: each value given
    checked, each one not given at its default.

    Raises:
        The exception `fail(key, message)` makes for the first problem: `table` not a table
        (`key` ""), an unknown key, a required key missing or a value refused.
    """
    if not isinstance(table, Mapping):
        raise fail("", "must be a table")
    accepted = declared(settings_type)
    unknown = sorted(set(table) - set(accepted))
    if unknown:
        raise fail(unknown[0], f"unknown key; accepted: {', '.join(accepted)}")
    values = {}
    for name, param in accepted.items():
        if name not in table and param.required:
            raise fail(
                name, f"is required; accepted: {getattr(param.check, 'accepted', 'a value')}"
            )
        try:
            values[name] = param.check(table.get(name, param.default))
        except ValueError as error:
            raise fail(name, str(error)) from None
    return values


def settings_from_table(settings_type: type, table: Any, section: str) -> Any:
    """`settings_type` made from a config file's table `[section]` (`read_table`).

    Raises:
        ValueError: `[section] key: ...` for the first problem (an unknown key lists the accepted
            ones; a refused value says what is accepted).
    """

    def fail(key: str, message: str) -> ValueError:
        return ValueError(f"[{section}] {key}: {message}" if key else f"[{section}] {message}")

    return settings_type(**read_table(table, settings_type, fail))


def pick(settings_type: type, values: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of `values` that are declared fields of `settings_type`."""
    names = declared(settings_type)
    return {name: value for name, value in values.items() if name in names}


def checked(accepted: Mapping[str, Param], values: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """Every parameter of `accepted`, each value of `values` checked and the others at their
    defaults, in `accepted`'s order.

    Raises:
        ValueError: An unknown parameter (the message lists the accepted ones), a required one
            not given, or a refused value (the message names the parameter, `owner`, its doc and
            what is accepted).
    """
    unknown = sorted(set(values) - set(accepted))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))} for {owner}; "
            f"valid parameters: {', '.join(accepted)}"
        )
    missing = [name for name, param in accepted.items() if param.required and name not in values]
    if missing:
        raise ValueError(
            "; ".join(
                f"parameter {name!r} of {owner} is required ({accepted[name].doc})"
                for name in missing
            )
        )
    result = {}
    for name, param in accepted.items():
        try:
            result[name] = param.check(values.get(name, param.default))
        except ValueError as error:
            raise ValueError(
                f"bad value for parameter {name!r} of {owner} ({param.doc}): {error}"
            ) from None
    return result
