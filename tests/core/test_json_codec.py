"""core.json_codec: orjson where it answers as the standard library does, the standard library
where it would not; and the PostgreSQL backend and the match store using it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from core import json_codec
from games.match_store import json_column

# JSON documents as the standard library writes and reads them (finite floats: NaN is not JSON).
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
documents = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(documents)
def test_loads_and_dumps_agree_with_the_standard_library(document: Any) -> None:
    text = json.dumps(document)
    assert json_codec.loads(text) == json.loads(text)
    assert json_codec.loads(text.encode()) == json.loads(text)
    try:
        expected = json.loads(json.dumps(document))
    except ValueError:  # a lone surrogate the standard library escapes: read back the same
        expected = None
    if expected is not None:
        assert json.loads(json_codec.dumps(document)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "123456789012345678901234567890",  # orjson alone would read a float
        '{"a": [18446744073709551616, -9223372036854775809]}',
        "0.1234567890123456789012345",
        '{"seat": 9223372036854775807}',
    ],
)
def test_long_numbers_are_read_exactly(text: str) -> None:
    assert json_codec.loads(text) == json.loads(text)
    assert type(json_codec.loads(text)) is type(json.loads(text))


def test_what_orjson_refuses_to_write_is_written_by_the_standard_library() -> None:
    assert json.loads(json_codec.dumps({"big": 2**70})) == {"big": 2**70}
    keyed = {1: "a", False: "b", None: "c", 2.5: "d"}
    assert json.loads(json_codec.dumps(keyed)) == json.loads(json.dumps(keyed))
    with pytest.raises(TypeError):
        json_codec.dumps({"x": object()})


@pytest.mark.django_db
def test_the_backend_writes_jsonb_with_the_codec() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the PostgreSQL backend")
    value = {"é": [1, 2.5, None, True, 2**70], "1": {"nested": "ü\n"}}
    adapted = connection.ops.adapt_json_value(value, None)
    assert adapted.dumps is json_codec.dumps
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::jsonb::text", [adapted])
        (stored,) = cursor.fetchone()
    assert json.loads(stored) == value
    # A field with its own encoder keeps Django's json.dumps(cls=…).
    assert connection.ops.adapt_json_value(value, json.JSONEncoder).dumps is not json_codec.dumps


def test_the_match_store_decodes_json_columns_with_the_codec() -> None:
    assert json_column(None) is None
    assert json_column('{"a": 1}') == {"a": 1}
    assert json_column(b"[1, 2]") == [1, 2]
    assert json_column({"a": 1}) == {"a": 1}  # already decoded
    assert json_column("123456789012345678901234567890") == 123456789012345678901234567890


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.text(alphabet=st.sampled_from('0123456789 ,.-e"[]{}:a٣é\udc80'), max_size=80))
def test_the_long_number_check_finds_what_the_regular_expression_finds(text: str) -> None:
    # The check that sends a text to the standard library is a plain search over the text's
    # bytes with its digits made alike; it must agree with ``[0-9]{19}`` on every text (ASCII
    # digits only: "٣" is a digit to Unicode, not to JSON).
    expected = re.search(r"[0-9]{19}", text) is not None
    assert json_codec._has_long_number(text.encode("utf-8", "surrogatepass")) is expected
