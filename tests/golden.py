"""Golden records compared as the same records on any machine: every key, string, integer and list as the
golden file has it, and each float within one unit of the last decimal the golden file prints (a value
rounded to 6 decimals may land one unit apart where another CPU's floating-point path differs in its last
bit). A signed zero is never written: `-0.0` is one such path's sign of a value rounded to nothing."""

from __future__ import annotations

import json
import re

SIGNED_ZERO = re.compile(rb"(?<![\w.])-0\.0(?![\d])")


def last_place(value: float) -> float:
    """One unit of the last decimal `value` prints (`1.67865` -> 1e-5, `9.3e-05` -> 1e-6), at least 0.01: a
    value printed `0.0` or `32.0` says nothing of the decimals it was rounded to."""
    mantissa, _, exponent = repr(value).partition("e")
    decimals = len(mantissa.partition(".")[2]) - int(exponent or 0)
    return 10.0 ** -max(decimals, 2) * 1.000001


def assert_same_records(written: bytes, golden: bytes) -> None:
    """`written` holds the golden file's records, line for line (see the module's docstring)."""
    signed = SIGNED_ZERO.search(written)
    assert signed is None, f"a signed zero is written: ...{written[max(0, signed.start() - 60):signed.end()].decode()}"
    now, then = written.decode().splitlines(), golden.decode().splitlines()
    assert len(now) == len(then), f"{len(now)} records, the golden file holds {len(then)}"
    for number, (line, expected) in enumerate(zip(now, then), start=1):
        _assert_same(json.loads(line), json.loads(expected), f"line {number}")


def _assert_same(value: object, expected: object, where: str) -> None:
    assert type(value) is type(expected), f"{where}: {value!r}, the golden file holds {expected!r}"
    if isinstance(expected, float):
        assert abs(value - expected) <= last_place(expected), f"{where}: {value!r}, the golden file holds {expected!r}"
    elif isinstance(expected, dict):
        assert list(value) == list(expected), f"{where}: keys {list(value)}, the golden file holds {list(expected)}"
        for key in expected:
            _assert_same(value[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(value) == len(expected), f"{where}: {len(value)} items, the golden file holds {len(expected)}"
        for k, (item, golden_item) in enumerate(zip(value, expected)):
            _assert_same(item, golden_item, f"{where}.{k}")
    else:
        assert value == expected, f"{where}: {value!r}, the golden file holds {expected!r}"
