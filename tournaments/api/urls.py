from django.urls import path

from tournaments.api import views as v

urlpatterns = [
    path("tournaments", v.TournamentListApi.as_view(), name="tournament-list"),
    path(
        "tournaments/<str:tournament_id>", v.TournamentDetailApi.as_view(), name="tournament-detail"
    ),
    path(
        "tournaments/<str:tournament_id>/join",
        v.TournamentJoinApi.as_view(),
        name="tournament-join",
    ),
    path(
        "tournaments/<str:tournament_id>/decline",
        v.TournamentDeclineApi.as_view(),
        name="tournament-decline",
    ),
    path(
        "tournaments/<str:tournament_id>/withdraw",
        v.TournamentWithdrawApi.as_view(),
        name="tournament-withdraw",
    ),
    path(
        "tournaments/<str:tournament_id>/berserk",
        v.TournamentBerserkApi.as_view(),
        name="tournament-berserk",
    ),
    path(
        "tournaments/<str:tournament_id>/start",
        v.TournamentStartApi.as_view(),
        name="tournament-start",
    ),
    path(
        "tournaments/<str:tournament_id>/pause",
        v.TournamentPauseApi.as_view(),
        name="tournament-pause",
    ),
    path(
        "tournaments/<str:tournament_id>/resume",
        v.TournamentResumeApi.as_view(),
        name="tournament-resume",
    ),
    path(
        "tournaments/<str:tournament_id>/end", v.TournamentEndApi.as_view(), name="tournament-end"
    ),
    path(
        "tournaments/<str:tournament_id>/players",
        v.TournamentPlayersApi.as_view(),
        name="tournament-players",
    ),
    path(
        "tournaments/<str:tournament_id>/players/<str:username>/disqualify",
        v.TournamentDisqualifyApi.as_view(),
        name="tournament-disqualify",
    ),
    path(
        "tournaments/<str:tournament_id>/standings",
        v.TournamentStandingsApi.as_view(),
        name="tournament-standings",
    ),
    path(
        "tournaments/<str:tournament_id>/crosstable",
        v.TournamentCrosstableApi.as_view(),
        name="tournament-crosstable",
    ),
    path(
        "tournaments/<str:tournament_id>/rounds",
        v.TournamentRoundsApi.as_view(),
        name="tournament-rounds",
    ),
    path(
        "tournaments/<str:tournament_id>/events",
        v.TournamentEventsApi.as_view(),
        name="tournament-events",
    ),
    path(
        "tournaments/<str:tournament_id>/export",
        v.TournamentExportApi.as_view(),
        name="tournament-export",
    ),
]
