"""Creating a tournament: every setting checked against the game, its bots and the clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from accounts.sanctions import play_allowed_check
from cardgames.engines.protocol import InvalidOptions
from core.display_text import name_text_problem
from core.errors import PermissionDenied, ValidationFailed
from core.text import characters_from_one, one_of, seat_range, whole_number
from games.catalog import bots_of, get_engine
from games.services.deadlines import time_control_validate
from games.time_controls import TimeControl
from tournaments.models import Tournament
from tournaments.services.log import event_add

MAX_SWISS_ROUNDS = 50
MAX_INTERVAL_DAYS = 60
MAX_ROUND_LIMIT_SECONDS = 120 * 24 * 3600
MIN_ROUND_LIMIT_SECONDS = 60
MAX_NAME = 100
MAX_ARENA_MINUTES = 60 * 24 * 60  # sixty days: a correspondence arena
MAX_RATING = 10_000  # a shown rating (games/services/rating_scale.py), as seeks bound theirs


def _choice(errors: dict[str, list[str]], field: str, value: Any, choices: Any) -> None:
    if value not in choices:
        errors[field] = [one_of(choices)]


def _whole(errors: dict[str, list[str]], field: str, value: Any, low: int, high: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        errors[field] = [whole_number(low, high)]


def _settings_check(fields: dict[str, Any], errors: dict[str, list[str]]) -> None:
    name = str(fields.get("name") or "").strip()
    if not name or len(name) > MAX_NAME:
        errors["name"] = [characters_from_one(MAX_NAME)]
    elif (problem := name_text_problem(name)) is not None:
        # Its report file and exports carry it on one line (tournaments/pairing/export.py).
        errors["name"] = [problem]
    _choice(errors, "format", fields.get("format"), Tournament.Format.values)
    _choice(errors, "stand_in_bot", fields.get("stand_in_bot"), Tournament.StandIn.values)
    _choice(
        errors, "withdrawn_games", fields.get("withdrawn_games"), Tournament.WithdrawnGames.values
    )
    _choice(errors, "knockout_draws", fields.get("knockout_draws"), Tournament.KnockoutDraws.values)
    _choice(errors, "visibility", fields.get("visibility"), Tournament.Visibility.values)
    if fields.get("format") == Tournament.Format.SWISS:
        if fields.get("rounds") is None:
            errors["rounds"] = [gettext_noop("A Swiss tournament needs its number of rounds.")]
        _whole(errors, "rounds", fields.get("rounds"), 1, MAX_SWISS_ROUNDS)
    if fields.get("format") == Tournament.Format.ARENA:
        _arena_check(fields, errors)
    elif fields.get("admit_bots") and fields.get("format") != Tournament.Format.SWISS:
        errors["admit_bots"] = [gettext_noop("Only an arena or a Swiss admits bot accounts.")]
    _whole(errors, "round_interval_days", fields.get("round_interval_days"), 1, MAX_INTERVAL_DAYS)
    _whole(
        errors,
        "round_limit_seconds",
        fields.get("round_limit_seconds"),
        MIN_ROUND_LIMIT_SECONDS,
        MAX_ROUND_LIMIT_SECONDS,
    )
    _whole(errors, "min_rated_games", fields.get("min_rated_games"), 0, 100_000)
    _whole(errors, "min_account_days", fields.get("min_account_days"), 0, 100_000)
    _whole(errors, "max_players", fields.get("max_players"), 2, 10_000)
    # ratings as players read them (1500 a newcomer; games/services/rating_scale.py)
    _whole(errors, "min_rating", fields.get("min_rating"), 0, MAX_RATING)
    _whole(errors, "max_rating", fields.get("max_rating"), 0, MAX_RATING)
    low, high = fields.get("min_rating"), fields.get("max_rating")
    if "min_rating" in errors or "max_rating" in errors:
        return
    if low is not None and high is not None and low > high:
        errors["max_rating"] = [gettext_noop("At least min_rating.")]


def _arena_check(fields: dict[str, Any], errors: dict[str, list[str]]) -> None:
    """An arena needs its window and a clock (a match with none could outlast it forever);
    berserk halves a bank, so only Fischer and byo-yomi clocks allow it."""
    if fields.get("arena_minutes") is None:
        errors["arena_minutes"] = [gettext_noop("An arena needs its length in minutes.")]
    _whole(errors, "arena_minutes", fields.get("arena_minutes"), 1, MAX_ARENA_MINUTES)
    control = fields.get("time_control")
    if not control:
        errors["time_control"] = [gettext_noop("An arena's matches need a time control.")]
    elif fields.get("berserk") and control.get("kind") not in ("fischer", "byoyomi"):
        errors["berserk"] = [gettext_noop("Berserk needs a Fischer or byo-yomi clock.")]
    if fields.get("round_interval_days") is not None:
        errors["round_interval_days"] = [gettext_noop("An arena has no rounds to space.")]


def _times_check(fields: dict[str, Any], errors: dict[str, list[str]], now: datetime) -> None:
    starts, opens, closes = (
        fields.get("starts_at"),
        fields.get("registration_opens_at"),
        fields.get("registration_closes_at"),
    )
    if starts is None:
        errors["starts_at"] = [gettext_noop("A start time is required.")]
        return
    if starts < now - timedelta(minutes=5):
        errors["starts_at"] = [gettext_noop("The start must not lie in the past.")]
    if closes is not None and closes > starts:
        errors["registration_closes_at"] = [gettext_noop("Registration must close by the start.")]
    if opens is not None and closes is not None and opens >= closes:
        errors["registration_opens_at"] = [gettext_noop("Registration must open before it closes.")]


def _game_check(fields: dict[str, Any], errors: dict[str, list[str]]) -> dict[str, Any]:
    """The game's options with defaults filled; errors for the game, seats and stand-in."""
    game = fields.get("game")
    engine = get_engine(game) if isinstance(game, str) else None
    if engine is None:
        errors["game"] = [gettext_noop("Unknown game.")]
        return {}
    seats = fields.get("seats")
    if isinstance(seats, bool) or not isinstance(seats, int):
        errors["seats"] = [gettext_noop("A whole number of seats.")]
        return {}
    if not engine.min_players <= seats <= engine.max_players:
        errors["seats"] = [seat_range(engine.name, engine.min_players, engine.max_players)]
        return {}
    assert isinstance(game, str)
    if fields.get("stand_in_bot") not in bots_of(game):
        errors["stand_in_bot"] = [one_of(sorted(bots_of(game)))]
    try:
        return dict(engine.validate_options(fields.get("options") or {}, seats))
    except InvalidOptions as exc:
        errors.update({f"options.{key}": value for key, value in exc.errors.items()})
        return {}


def tournament_create(*, organiser: User, now: datetime | None = None, **fields: Any) -> Tournament:
    """A new tournament in registration; its creator organises it. ``fields`` as the API's
    input (docs/api.md, "Tournaments"); ``featured`` only for staff."""
    now = now or timezone.now()
    play_allowed_check(organiser, now=now)
    fields = {
        "stand_in_bot": Tournament.StandIn.GREEDY,
        "withdrawn_games": Tournament.WithdrawnGames.FORFEIT,
        "knockout_draws": Tournament.KnockoutDraws.RATING,
        "visibility": Tournament.Visibility.PUBLIC,
        "seats": 2,
        "rated": True,
        "featured": False,
        "min_rated_games": 0,
        "min_account_days": 0,
        "streaks": True,
        "berserk": False,
        "admit_bots": False,
        **fields,
    }
    if fields["featured"] and not organiser.is_staff:
        raise PermissionDenied(gettext_noop("Only staff may feature a tournament."))
    errors: dict[str, list[str]] = {}
    _settings_check(fields, errors)
    _times_check(fields, errors, now)
    options = _game_check(fields, errors)
    if errors:
        raise ValidationFailed(errors)
    time_control = fields.get("time_control")
    if time_control is not None:
        # The stand-in that moves for a late seat is the tournament's.
        time_control = {**time_control, "auto_move_bot": fields["stand_in_bot"]}
    time_control = time_control_validate(time_control, game=fields["game"])
    if fields["format"] != Tournament.Format.ARENA:
        fields["arena_minutes"] = None
    if fields["format"] != Tournament.Format.SWISS:
        fields["rounds"] = None  # computed at the start, from the players
    with transaction.atomic():
        tournament = Tournament.objects.create(
            **{
                **fields,
                "name": fields["name"].strip(),
                "options": options,
                "time_control": time_control,
            },
            organiser=organiser,
            created_at=now,
        )
        event_add(tournament, "created", at=now, author=organiser)
    return tournament


def pause_allowed(tournament: Tournament) -> bool:
    """As for a match: only a correspondence time control that allows pauses."""
    if tournament.time_control is None or tournament.format == Tournament.Format.ARENA:
        return False  # an arena's window is fixed
    control = TimeControl.of(tournament.time_control)
    return bool(control.correspondence and tournament.time_control.get("allow_pause", True))
