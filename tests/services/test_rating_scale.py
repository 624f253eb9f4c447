from games.services.rating_scale import from_ordinal, provisional, shown_rating, to_ordinal


def test_a_new_player_reads_1500_and_provisional() -> None:
    assert shown_rating(25.0, 25 / 3) == 1500
    assert provisional(25 / 3)


def test_the_mapping_is_linear_and_invertible() -> None:
    assert from_ordinal(-2.8) == 1360
    assert shown_rating(30.0, 2.0) == 1500 + 50 * 24
    assert to_ordinal(1360) == -2.8
    assert not provisional(6.0)
