"""Every model the console shows, registered on the console's site (``admin.site`` is the
ConsoleSite: console/apps.py). The ModelAdmins live in console/admins/, one module a subject."""

from __future__ import annotations

from django.contrib import admin

from accounts.models import AccessToken, User
from console.admins.ladder import LadderEntryAdmin, LadderMatchAdmin
from console.admins.matches import MatchAdmin
from console.admins.offers import SeatOfferAdmin, SeatTenureAdmin
from console.admins.social import ChatMessageAdmin, SeekAdmin
from console.admins.tournaments import (
    EntryAdmin,
    TournamentAdmin,
    TournamentEventAdmin,
    TournamentMatchAdmin,
)
from console.admins.users import AccessTokenAdmin, FacedownUserAdmin
from games.models import Match, SeatOffer, SeatTenure
from ladder.models import LadderEntry, LadderMatch
from social.models import ChatMessage, Seek
from tournaments.models import Entry, Tournament, TournamentEvent, TournamentMatch

# django.contrib.auth registers the stock user admin for its own model only when it is the
# user model; ours is accounts.User, so nothing to replace.
admin.site.register(User, FacedownUserAdmin)
admin.site.register(AccessToken, AccessTokenAdmin)
admin.site.register(Match, MatchAdmin)
admin.site.register(SeatOffer, SeatOfferAdmin)
admin.site.register(SeatTenure, SeatTenureAdmin)
admin.site.register(ChatMessage, ChatMessageAdmin)
admin.site.register(Seek, SeekAdmin)
admin.site.register(Tournament, TournamentAdmin)
admin.site.register(Entry, EntryAdmin)
admin.site.register(TournamentMatch, TournamentMatchAdmin)
admin.site.register(TournamentEvent, TournamentEventAdmin)
admin.site.register(LadderEntry, LadderEntryAdmin)
admin.site.register(LadderMatch, LadderMatchAdmin)
