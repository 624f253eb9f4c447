from django.urls import path

from games.api import conditional, fairness, games, matches, players, proposals, rematch, series

urlpatterns = [
    # The hottest routes first: Django tries the patterns in order (config/urls.py).
    path("matches/<str:match_id>/moves", matches.MatchMovesApi.as_view(), name="match-moves"),
    path("matches/<str:match_id>", matches.MatchDetailApi.as_view(), name="match-detail"),
    path("matches/<str:match_id>/events", matches.MatchEventsApi.as_view(), name="match-events"),
    path("matches", matches.MatchListApi.as_view(), name="match-list"),
    path("games", games.GameListApi.as_view(), name="game-list"),
    path("games/<str:slug>", games.GameDetailApi.as_view(), name="game-detail"),
    path("games/<str:slug>/leaderboard", players.LeaderboardApi.as_view(), name="leaderboard"),
    path("players/<str:username>", players.PlayerApi.as_view(), name="player-detail"),
    path("series", series.SeriesListApi.as_view(), name="series-list"),
    path("series/<str:series_id>", series.SeriesDetailApi.as_view(), name="series-detail"),
    path("fairness/key", fairness.FairnessKeyApi.as_view(), name="fairness-key"),
    path("matches/<str:match_id>/join", matches.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<str:match_id>/decline", matches.MatchDeclineApi.as_view(), name="match-decline"),
    path("matches/<str:match_id>/resign", matches.MatchResignApi.as_view(), name="match-resign"),
    path("matches/<str:match_id>/reveals", matches.MatchRevealsApi.as_view(), name="match-reveals"),
    path("matches/<str:match_id>/rematch", rematch.MatchRematchApi.as_view(), name="match-rematch"),
    path("matches/<str:match_id>/audit", matches.MatchAuditApi.as_view(), name="match-audit"),
    path(
        "matches/<str:match_id>/conditional-moves",
        conditional.MatchConditionalMovesApi.as_view(),
        name="match-conditional-moves",
    ),
    path(
        "matches/<str:match_id>/proposals",
        proposals.MatchProposalsApi.as_view(),
        name="match-proposals",
    ),
    path(
        "matches/<str:match_id>/proposals/<str:proposal_id>/accept",
        proposals.ProposalAcceptApi.as_view(),
        name="match-proposal-accept",
    ),
    path(
        "matches/<str:match_id>/proposals/<str:proposal_id>/decline",
        proposals.ProposalDeclineApi.as_view(),
        name="match-proposal-decline",
    ),
    path(
        "matches/<str:match_id>/proposals/<str:proposal_id>/withdraw",
        proposals.ProposalWithdrawApi.as_view(),
        name="match-proposal-withdraw",
    ),
]
