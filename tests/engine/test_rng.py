"""The deal stream, pinned by fixed vectors (see cardgames/engines/rng.py and docs/fairness.md,
"The deal stream")."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from cardgames.engines.rng import DealRng

SEED = bytes(range(32))
MATCH_ID = "00000000-0000-0000-0000-000000000001"
CLIENT_SEEDS = ["alice", None]

FIRST_U64 = [
    8567168268932248772,
    2164188595860244776,
    9616160116660088558,
    2236263804850340899,
    3117366383997553290,
    16852789854338313034,
    11529994387834015318,
    5790831528302095068,
]
RANDBELOW_52 = [4, 4, 34, 23, 18]
SHUFFLE_1_13 = [13, 11, 4, 8, 6, 9, 2, 3, 12, 10, 7, 1, 5]


def make_rng() -> DealRng:
    return DealRng(SEED, MATCH_ID, CLIENT_SEEDS)


def test_first_words_are_pinned() -> None:
    rng = make_rng()
    assert [rng.next_u64() for _ in range(8)] == FIRST_U64


def test_randbelow_is_pinned() -> None:
    rng = make_rng()
    assert [rng.randbelow(52) for _ in range(5)] == RANDBELOW_52


def test_shuffle_is_pinned() -> None:
    rng = make_rng()
    items = list(range(1, 14))
    rng.shuffle(items)
    assert items == SHUFFLE_1_13
    assert make_rng().shuffled(list(range(1, 14))) == SHUFFLE_1_13


def test_block_zero_rederived_with_hmac() -> None:
    message = f"facedown-rng-v1|{MATCH_ID}|alice||0".encode()
    digest = hmac.new(SEED, message, hashlib.sha256).digest()
    words = [int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)]
    assert words == FIRST_U64[:4]


def test_block_one_rederived_with_hmac() -> None:
    message = f"facedown-rng-v1|{MATCH_ID}|alice||1".encode()
    digest = hmac.new(SEED, message, hashlib.sha256).digest()
    words = [int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)]
    assert words == FIRST_U64[4:]


def test_client_seeds_and_match_id_change_the_stream() -> None:
    base = make_rng().next_u64()
    assert DealRng(SEED, MATCH_ID, ["alice", "bob"]).next_u64() != base
    assert DealRng(SEED, MATCH_ID, [None, "alice"]).next_u64() != base
    assert DealRng(SEED, MATCH_ID.replace("1", "2"), CLIENT_SEEDS).next_u64() != base
    assert DealRng(bytes(32), MATCH_ID, CLIENT_SEEDS).next_u64() != base


def test_seed_must_be_32_bytes() -> None:
    with pytest.raises(ValueError):
        DealRng(bytes(31), MATCH_ID, CLIENT_SEEDS)


class FakeStream(DealRng):
    """A DealRng whose words come from a list."""

    def __init__(self, words: list[int]) -> None:
        super().__init__(SEED, MATCH_ID, CLIENT_SEEDS)
        self._fake = iter(words)

    def next_u64(self) -> int:
        return next(self._fake)


def test_randbelow_rejects_draws_at_or_above_the_limit() -> None:
    n = 3
    limit = 2**64 - (2**64 % n)
    rng = FakeStream([limit, 2**64 - 1, limit + 1, 7])
    assert rng.randbelow(n) == 7 % n


def test_randbelow_accepts_the_draw_just_below_the_limit() -> None:
    n = 52
    limit = 2**64 - (2**64 % n)
    rng = FakeStream([limit - 1])
    assert rng.randbelow(n) == (limit - 1) % n


def test_randbelow_needs_a_positive_bound() -> None:
    with pytest.raises(ValueError):
        make_rng().randbelow(0)


@pytest.mark.parametrize("size", [0, 1, 2, 5, 13, 52])
def test_shuffle_is_a_permutation(size: int) -> None:
    rng = make_rng()
    for _ in range(20):
        items = list(range(size))
        rng.shuffle(items)
        assert sorted(items) == list(range(size))


def test_shuffled_leaves_its_input_alone() -> None:
    items = list(range(1, 14))
    make_rng().shuffled(items)
    assert items == list(range(1, 14))
