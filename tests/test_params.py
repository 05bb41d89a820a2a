"""The one set of setting checkers and the field declarations the registry reads."""

from __future__ import annotations

import math
from dataclasses import FrozenInstanceError, dataclass

import pytest

from spiel_bounded.params import (
    FLAG,
    NAME,
    OPTIONAL_POSITIVE_INT,
    POSITIVE,
    Number,
    OneOf,
    check_fields,
    checked,
    declared,
    pick,
    read_table,
    required_setting,
    setting,
)


@pytest.mark.parametrize(
    ("checker", "value", "expected"),
    [
        (Number(minimum=0), 0, 0.0),
        (Number(minimum=0), 2.5, 2.5),
        (POSITIVE, 1e-9, 1e-9),
        (OPTIONAL_POSITIVE_INT, None, None),
        (OPTIONAL_POSITIVE_INT, 3, 3),
        (Number(), -7.0, -7.0),
        (FLAG, False, False),
        (OneOf(("a", "b")), "b", "b"),
    ],
)
def test_accepted_values(checker: object, value: object, expected: object) -> None:
    result = checker(value)  # type: ignore[operator]
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize(
    ("checker", "value", "message"),
    [
        (Number(minimum=0), -1, r"must be a number >= 0, got -1"),
        (Number(minimum=0), math.nan, r"got nan"),
        (Number(minimum=0), math.inf, r"got inf"),
        (Number(minimum=0), True, r"got True"),
        (Number(minimum=0), "1", r"got '1'"),
        (POSITIVE, 0, r"must be a number > 0, got 0"),
        (OPTIONAL_POSITIVE_INT, 2.0, r"must be an integer >= 1 or None, got 2.0"),
        (OPTIONAL_POSITIVE_INT, 0, r"got 0"),
        (FLAG, 1, r"must be True or False, got 1"),
        (FLAG, "yes", r"got 'yes'"),
        (OneOf(("a", "b")), "c", r"must be one of a, b; got 'c'"),
        (OneOf(("a", "b")), 1, r"got 1"),
    ],
)
def test_refused_values_say_what_is_accepted(checker: object, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        checker(value)  # type: ignore[operator]


@dataclass(frozen=True, kw_only=True)
class _Example:
    rate: float = setting(0.5, "a rate", Number(minimum=0))
    rounds: int | None = setting(None, "rounds (None: forever)", OPTIONAL_POSITIVE_INT)
    loud: bool = setting(False, "print nothing", FLAG)
    free: str = "not a declared setting"

    def __post_init__(self) -> None:
        check_fields(self)


def test_declared_reads_default_doc_and_check_of_each_field() -> None:
    params = declared(_Example)
    assert list(params) == ["rate", "rounds", "loud"]
    assert params["rate"].default == 0.5 and params["rate"].doc == "a rate"
    assert params["rounds"].check(4) == 4


def test_check_fields_normalises_and_names_the_field() -> None:
    example = _Example(rate=1)
    assert example.rate == 1.0 and isinstance(example.rate, float)
    with pytest.raises(FrozenInstanceError):
        example.rate = 2.0  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"_Example\.rounds must be an integer >= 1 or None"):
        _Example(rounds=0)
    with pytest.raises(ValueError, match=r"_Example\.loud must be True or False"):
        _Example(loud=1)  # type: ignore[arg-type]


def test_pick_keeps_only_declared_fields() -> None:
    assert pick(_Example, {"rate": 1.0, "seed": 3, "free": "x"}) == {"rate": 1.0}


def test_declared_refuses_a_non_dataclass() -> None:
    with pytest.raises(TypeError, match="not a dataclass"):
        declared(int)


@dataclass(frozen=True, kw_only=True)
class _WithRequired:
    path: str = required_setting("where it is", OneOf(("here", "there")))
    rate: float = setting(0.5, "a rate", Number(minimum=0))

    def __post_init__(self) -> None:
        check_fields(self)


def test_a_required_setting_has_no_default_and_must_be_given() -> None:
    params = declared(_WithRequired)
    assert params["path"].required and params["path"].default is None
    assert not params["rate"].required
    assert checked(params, {"path": "here"}, "thing") == {"path": "here", "rate": 0.5}
    with pytest.raises(
        ValueError, match=r"^parameter 'path' of thing is required \(where it is\)$"
    ):
        checked(params, {"rate": 1.0}, "thing")
    with pytest.raises(ValueError, match=r"parameter 'path' of thing .*one of here, there"):
        checked(params, {"path": "nowhere"}, "thing")
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'path'"):
        _WithRequired()  # type: ignore[call-arg]
    assert _WithRequired(path="there").path == "there"


def test_a_config_table_is_read_by_its_declarations() -> None:
    """`read_table` gives every declared key (defaults filled in) and names the key of the
    first problem: an unknown key, a required one missing, a refused value."""

    @dataclass(frozen=True, kw_only=True)
    class Section:
        name: str = required_setting("a name", NAME)
        count: int = setting(1, "how many", Number(minimum=1, integer=True))

    def fail(key: str, message: str) -> ValueError:
        return ValueError(f"[section] {key}: {message}")

    assert read_table({"name": "a_1"}, Section, fail) == {"name": "a_1", "count": 1}
    for table, message in (
        ({"name": "a", "cuont": 2}, r"\[section\] cuont: unknown key; accepted: name, count"),
        ({"count": 2}, r"\[section\] name: is required; accepted: a name of letters"),
        ({"name": "a b"}, r"\[section\] name: must be a name of letters.*got 'a b'"),
        ({"name": "a", "count": 0}, r"\[section\] count: must be an integer >= 1, got 0"),
        ([1, 2], r"\[section\] : must be a table"),
    ):
        with pytest.raises(ValueError, match=message):
            read_table(table, Section, fail)
