"""What an engine tells a player, as they read it: every reason a move is illegal and every
option an engine refuses, by a stable id.

Each id maps to an English template with named ``%(name)s`` parameters. A ``Reason`` is the
English text of one (a ``str``: whoever reads it as text reads that) that keeps its id and
parameters, so that the problem writer (``core.problems``, ``core.text.said``) fills in the
template's translation instead. The parameters are codes, numbers and JSON values, never
words, so they read the same in every language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def gettext_noop(text: str) -> str:
    """Marks the template for the translation catalogues (``makemessages`` finds it by this
    name) and returns it unchanged; Django's own marker cannot be imported here (the engines
    are free of Django)."""
    return text


MESSAGES: dict[str, str] = {
    # every game
    "game_over": gettext_noop("the game is over"),
    "no_move_due": gettext_noop("no move is due"),
    "seat_not_in_game": gettext_noop("seat %(seat)s is not in this game"),
    "missing_moves": gettext_noop("missing moves for seats %(seats)s"),
    "seats_not_to_act": gettext_noop("seats %(seats)s are not to act"),
    # the sealed-bid games: GOPS, Hols der Geier
    "card_move_shape": gettext_noop('a move must be exactly {"card": <integer>}'),
    "card_not_integer": gettext_noop("card must be an integer"),
    "card_out_of_range": gettext_noop(
        "card %(card)s is not in your hand (cards run from 1 to %(high)s)"
    ),
    "card_removed": gettext_noop("card %(card)s was removed before the deal"),
    "card_played": gettext_noop("card %(card)s has already been played"),
    # Memory
    "memory_not_your_turn": gettext_noop("it is seat %(turn)s's turn, not seat %(seat)s's"),
    "flip_move_shape": gettext_noop('a move must be exactly {"flip": <position>}'),
    "position_not_integer": gettext_noop("position must be an integer"),
    "position_off_grid": gettext_noop("position %(position)s is not on the grid (0 to %(last)s)"),
    "position_taken": gettext_noop("position %(position)s has already been taken"),
    "position_flipped": gettext_noop("position %(position)s is already flipped this turn"),
    # Old Men of the Forest
    "omf_not_your_turn": gettext_noop("it is not your turn: seat %(seat)s is to act"),
    "omf_play_shape": gettext_noop('a play step: the move must be {"play": "<card>"}'),
    "omf_take_shape": gettext_noop('a take step: the move must be {"take": "<card>"}'),
    "omf_cash_in_shape": gettext_noop(
        'a cash_in step: the move must be {"cash_in": {"orangutan": "<id>"}} or {"cash_in": null}'
    ),
    "omf_play_code": gettext_noop("play must name a card code such as R3 or X10"),
    "omf_take_code": gettext_noop("take must name a card code such as R3 or X10"),
    "not_in_hand": gettext_noop("%(card)s is not in your hand"),
    "omf_own_card": gettext_noop("%(card)s is your own card; take one someone else played"),
    "omf_taken": gettext_noop("%(card)s has already been taken"),
    "omf_not_in_trick": gettext_noop("%(card)s was not played in this trick"),
    "omf_cash_in_value": gettext_noop(
        'cash_in must be null or {"orangutan": "<id>", "give"?: [cards]}'
    ),
    "omf_cash_in_fields": gettext_noop("cash_in has unknown fields %(fields)s"),
    "omf_no_orangutan": gettext_noop("orang-utan %(ident)s is not in the layout"),
    "omf_requirement_unmet": gettext_noop(
        "your collection does not meet the requirement of %(ident)s"
    ),
    "omf_give_list": gettext_noop("give must be a list of card codes"),
    "omf_give_twice": gettext_noop("give names a card twice"),
    "omf_give_missing": gettext_noop("give names cards not in your collection: %(cards)s"),
    "omf_give_inexact": gettext_noop(
        "give must meet exactly the requirement of %(ident)s: %(requires)s"
    ),
    # Xato
    "xato_move_shape": gettext_noop("a move must be exactly %(shape)s now"),
    "xato_not_a_code": gettext_noop(
        "%(card)s is not a card code (rank A23456789TJQK + suit SHDC, RJ, BJ)"
    ),
    "xato_not_in_pack": gettext_noop("%(card)s is not in the pack with %(players)s players"),
    "xato_not_to_act": gettext_noop("seat %(seat)s is not to act now"),
    "xato_not_on_table": gettext_noop("%(card)s is no longer on the table"),
    "xato_life_list": gettext_noop("life must be a list of card codes"),
    "xato_life_count": gettext_noop("choose exactly %(count)s life cards"),
    "xato_life_distinct": gettext_noop("life cards must be distinct"),
    "xato_not_yours": gettext_noop("%(card)s is not one of your cards"),
    "xato_claim_boolean": gettext_noop("claim must be true or false"),
    # options (the JSON Schema's refusals keep the wording of the jsonschema package)
    "option_unknown": gettext_noop("unknown option"),
    "options_not_object": gettext_noop("options must be an object"),
    "option_type": gettext_noop("%(value)s is not of type %(types)s"),
    "option_enum": gettext_noop("%(value)s is not one of %(choices)s"),
    "option_minimum": gettext_noop("%(value)s is less than the minimum of %(limit)s"),
    "option_maximum": gettext_noop("%(value)s is greater than the maximum of %(limit)s"),
    "seats_range": gettext_noop("%(game)s takes %(low)s to %(high)s players"),
    "hdg_two_player_variant": gettext_noop("the two-player variant needs exactly 2 players"),
    "omf_five_players": gettext_noop("%(game)s takes 3 or 4 players; 5 need allow_five: true"),
}


class Reason(str):
    """The English text of ``MESSAGES[message_id]`` with ``params`` filled in, keeping both."""

    message_id: str
    template: str
    params: Mapping[str, object]

    def __new__(cls, message_id: str, /, **params: object) -> Reason:
        template = MESSAGES[message_id]
        reason = super().__new__(cls, template % params)
        reason.message_id = message_id
        reason.template = template
        reason.params = params
        return reason

    def __reduce__(self) -> tuple[Any, ...]:
        return (_reason, (self.message_id, dict(self.params)))


def _reason(message_id: str, params: dict[str, object]) -> Reason:
    return Reason(message_id, **params)
