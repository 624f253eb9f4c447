"""Every operation id of the schema, by the one rule of core/openapi.py: readable names for a
generated client, kept as they are (a change here is a change of every generated client)."""

from __future__ import annotations

import re

from drf_spectacular.generators import SchemaGenerator

from core.openapi import PREFIX, operation_id

#: (method and path after /api/v1, operation id), as published.
PUBLISHED = [
    ("GET accounts/email/verify", "accounts_email_verify_retrieve"),
    ("POST accounts/logout", "accounts_logout_create"),
    ("GET accounts/me", "accounts_me_retrieve"),
    ("PATCH accounts/me", "accounts_me_partial_update"),
    ("DELETE accounts/me", "accounts_me_destroy"),
    ("POST accounts/me/bot", "accounts_me_bot_create"),
    ("POST accounts/me/calendar-key", "accounts_me_calendar_key_create"),
    ("GET accounts/me/deadlines.ics", "accounts_me_deadlines_ics_retrieve"),
    ("GET accounts/me/export", "accounts_me_export_retrieve"),
    ("GET accounts/me/notifications", "accounts_me_notifications_retrieve"),
    ("PATCH accounts/me/notifications", "accounts_me_notifications_partial_update"),
    ("POST accounts/me/push-subscriptions", "accounts_me_push_subscription_create"),
    ("GET accounts/me/vacation", "accounts_me_vacation_retrieve"),
    ("POST accounts/me/vacation", "accounts_me_vacation_create"),
    ("PATCH accounts/me/vacation", "accounts_me_vacation_partial_update"),
    ("DELETE accounts/me/vacation", "accounts_me_vacation_destroy"),
    (
        "DELETE accounts/me/push-subscriptions/{subscription_id}",
        "accounts_me_push_subscription_destroy",
    ),
    ("GET accounts/me/tokens", "accounts_me_tokens_list"),
    ("POST accounts/me/tokens", "accounts_me_token_create"),
    ("DELETE accounts/me/tokens/{token_id}", "accounts_me_token_destroy"),
    ("GET accounts/me/webhooks", "accounts_me_webhooks_list"),
    ("POST accounts/me/webhooks", "accounts_me_webhook_create"),
    ("GET accounts/me/webhooks/{webhook_id}", "accounts_me_webhook_retrieve"),
    ("DELETE accounts/me/webhooks/{webhook_id}", "accounts_me_webhook_destroy"),
    (
        "GET accounts/me/webhooks/{webhook_id}/deliveries",
        "accounts_me_webhook_deliveries_list",
    ),
    (
        "GET accounts/notifications/unsubscribe",
        "accounts_notifications_unsubscribe_retrieve",
    ),
    (
        "POST accounts/notifications/unsubscribe",
        "accounts_notifications_unsubscribe_create",
    ),
    ("POST accounts/password", "accounts_password_create"),
    ("POST accounts/password-reset", "accounts_password_reset_create"),
    ("POST accounts/password-reset/confirm", "accounts_password_reset_confirm_create"),
    ("GET accounts/push-key", "accounts_push_key_retrieve"),
    ("POST accounts/register", "accounts_register_create"),
    ("POST accounts/stream-ticket", "accounts_stream_ticket_create"),
    ("POST accounts/token", "accounts_token_create"),
    ("POST accounts/token/rotate", "accounts_token_rotate_create"),
    ("POST bulk-pairings", "bulk_pairing_create"),
    ("GET challenges", "challenges_list"),
    ("POST challenges", "challenge_create"),
    ("GET challenges/{challenge_id}", "challenge_retrieve"),
    ("POST challenges/{challenge_id}/accept", "challenge_accept_create"),
    ("POST challenges/{challenge_id}/cancel", "challenge_cancel_create"),
    ("POST challenges/{challenge_id}/decline", "challenge_decline_create"),
    ("GET chat/mutes", "chat_mutes_retrieve"),
    ("POST chat/mutes", "chat_mute_create"),
    ("GET fairness/key", "fairness_key_retrieve"),
    ("GET games", "games_list"),
    ("GET games/{slug}", "game_retrieve"),
    ("GET games/{slug}/leaderboard", "game_leaderboard_retrieve"),
    ("GET matches", "matches_list"),
    ("POST matches", "match_create"),
    ("GET matches/{match_id}", "match_retrieve"),
    ("GET matches/{match_id}/audit", "match_audit_retrieve"),
    ("GET matches/{match_id}/chat", "match_chat_retrieve"),
    ("GET matches/{match_id}/conditional-moves", "match_conditional_moves_retrieve"),
    ("PUT matches/{match_id}/conditional-moves", "match_conditional_moves_update"),
    ("DELETE matches/{match_id}/conditional-moves", "match_conditional_moves_destroy"),
    ("POST matches/{match_id}/chat", "match_chat_create"),
    ("POST matches/{match_id}/chat/{seq}/hide", "match_chat_hide_create"),
    ("POST matches/{match_id}/decline", "match_decline_create"),
    ("GET matches/{match_id}/events", "match_events_retrieve"),
    ("POST matches/{match_id}/join", "match_join_create"),
    ("POST matches/{match_id}/moves", "match_move_create"),
    ("GET matches/{match_id}/proposals", "match_proposals_retrieve"),
    ("POST matches/{match_id}/proposals", "match_proposal_create"),
    (
        "POST matches/{match_id}/proposals/{proposal_id}/accept",
        "match_proposal_accept_create",
    ),
    (
        "POST matches/{match_id}/proposals/{proposal_id}/decline",
        "match_proposal_decline_create",
    ),
    (
        "POST matches/{match_id}/proposals/{proposal_id}/withdraw",
        "match_proposal_withdraw_create",
    ),
    ("GET matches/{match_id}/substitutes", "match_substitutes_retrieve"),
    ("POST matches/{match_id}/substitutes", "match_substitute_create"),
    (
        "POST matches/{match_id}/substitutes/{offer_id}/accept",
        "match_substitute_accept_create",
    ),
    (
        "POST matches/{match_id}/substitutes/{offer_id}/decline",
        "match_substitute_decline_create",
    ),
    (
        "POST matches/{match_id}/substitutes/{offer_id}/withdraw",
        "match_substitute_withdraw_create",
    ),
    ("GET substitutes", "substitutes_list"),
    ("POST matches/{match_id}/rematch", "match_rematch_create"),
    ("POST matches/{match_id}/resign", "match_resign_create"),
    ("POST matches/{match_id}/reveals", "match_reveal_create"),
    ("GET players/{username}", "player_retrieve"),
    ("POST reports", "report_create"),
    ("GET sanctions", "sanctions_list"),
    ("POST sanctions/{sanction_id}/appeal", "sanction_appeal_create"),
    ("GET seeks", "seeks_list"),
    ("POST seeks", "seek_create"),
    ("GET seeks/{seek_id}", "seek_retrieve"),
    ("DELETE seeks/{seek_id}", "seek_destroy"),
    ("POST series", "series_create"),
    ("GET series/{series_id}", "series_retrieve"),
    ("GET tournaments", "tournaments_list"),
    ("POST tournaments", "tournament_create"),
    ("GET tournaments/{tournament_id}", "tournament_retrieve"),
    ("GET tournaments/{tournament_id}/crosstable", "tournament_crosstable_retrieve"),
    ("GET tournaments/{tournament_id}/events", "tournament_events_list"),
    ("GET tournaments/{tournament_id}/export", "tournament_export_retrieve"),
    ("GET tournaments/{tournament_id}/rounds", "tournament_rounds_list"),
    ("GET tournaments/{tournament_id}/standings", "tournament_standings_retrieve"),
    ("POST tournaments/{tournament_id}/berserk", "tournament_berserk_create"),
    ("POST tournaments/{tournament_id}/decline", "tournament_decline_create"),
    ("POST tournaments/{tournament_id}/end", "tournament_end_create"),
    ("POST tournaments/{tournament_id}/join", "tournament_join_create"),
    ("POST tournaments/{tournament_id}/pause", "tournament_pause_create"),
    ("POST tournaments/{tournament_id}/players", "tournament_player_create"),
    (
        "POST tournaments/{tournament_id}/players/{username}/disqualify",
        "tournament_player_disqualify_create",
    ),
    ("POST tournaments/{tournament_id}/resume", "tournament_resume_create"),
    ("POST tournaments/{tournament_id}/start", "tournament_start_create"),
    ("POST tournaments/{tournament_id}/withdraw", "tournament_withdraw_create"),
    ("GET matches/{match_id}/stream", "match_stream_retrieve"),
    ("GET accounts/me/stream", "accounts_me_stream_retrieve"),
    ("GET tournaments/{tournament_id}/stream", "tournament_stream_retrieve"),
    ("GET ladders/{game}", "ladder_retrieve"),
    ("GET ladders/{game}/entry", "ladder_entry_retrieve"),
    ("POST ladders/{game}/entry", "ladder_entry_create"),
    ("DELETE ladders/{game}/entry", "ladder_entry_destroy"),
    ("POST ladders/{game}/entry/resume", "ladder_entry_resume_create"),
]


def _operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (f"{method.upper()} {path.removeprefix(PREFIX)}", operation["operationId"])
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if isinstance(operation, dict) and "operationId" in operation
    ]


def test_every_operation_id_is_kept() -> None:
    assert sorted(_operations()) == sorted(PUBLISHED)


def test_the_ids_follow_one_rule() -> None:
    actions = {
        "GET": "retrieve",
        "POST": "create",
        "PUT": "update",
        "PATCH": "partial_update",
        "DELETE": "destroy",
    }
    for route, name in PUBLISHED:
        method, path = route.split(" ")
        path = PREFIX + path
        assert re.fullmatch(r"[a-z][a-z0-9_]*", name), name  # no dots, no hyphens
        action = "list" if name.endswith("_list") else actions[method]
        assert operation_id(path, action) == name, route
    assert len({name for _, name in PUBLISHED}) == len(PUBLISHED)


def test_the_rule_names_an_item_in_the_singular() -> None:
    assert operation_id("/api/v1/matches", "list") == "matches_list"
    assert operation_id("/api/v1/matches", "create") == "match_create"
    assert operation_id("/api/v1/matches/{match_id}/moves", "create") == "match_move_create"
    assert operation_id("/api/v1/accounts/me/deadlines.ics", "retrieve") == (
        "accounts_me_deadlines_ics_retrieve"
    )
