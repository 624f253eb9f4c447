"""Page shells. Every page is a server-rendered frame; the data comes from the JSON API
(/api/v1) through the page's JavaScript, with the session cookie and the CSRF header."""

from __future__ import annotations

import uuid
from math import ceil
from pathlib import Path

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language, gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods
from django.views.i18n import JavaScriptCatalog

from accounts.scopes import DESCRIPTIONS
from accounts.services import account_update
from core.languages import supported
from core.small_files import small_file_response
from core.throttling import scope_refusal
from games.catalog import engines, get_engine, web_drawings
from ladder.services.reads import ladder_board
from web.forms import LockedLoginForm, PasswordResetForm, SignUpForm

ASSETS = Path(__file__).resolve().parent / "static" / "web"
LOGIN_URL = "/login"


class WebLoginView(LoginView):
    template_name = "web/login.html"
    authentication_form = LockedLoginForm
    redirect_authenticated_user = True
    next_page = "/"


@never_cache
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("/")
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        # The API's ``register`` budget, counted per client address in the same counters.
        if (wait := scope_refusal(request, "register")) is not None:
            return _throttled(request, "web/signup.html", form, wait)
        user = form.save() if form.is_valid() else None
        if user is not None:
            # The language the page was read in becomes the profile's (mail, pushes).
            account_update(user=user, language=get_language())
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            target = request.GET.get("next", "/")
            if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
                target = "/"
            return redirect(target)
    return render(request, "web/signup.html", {"form": form})


def _throttled(request: HttpRequest, template: str, form: Form, wait: float) -> HttpResponse:
    form.errors.clear()
    form.add_error(
        None,
        gettext("Too many attempts from your address: try again in %(seconds)s s.")
        % {"seconds": ceil(wait)},
    )
    response = render(request, template, {"form": form}, status=429)
    response["Retry-After"] = str(ceil(wait))
    return response


@require_http_methods(["POST"])
def set_language(request: HttpRequest) -> HttpResponse:
    """The top bar's language switch: kept in the player's profile when signed in (mail and
    pushes follow it), in the language cookie for everyone; back to the page it came from."""
    language = supported(request.POST.get("language"))
    target = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
        target = "/"
    response = redirect(target)
    if language is None:
        return response
    if request.user.is_authenticated:
        account_update(user=request.user, language=language)
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=365 * 24 * 3600,
        samesite="Lax",
        secure=request.is_secure(),
    )
    return response


@never_cache
@require_http_methods(["GET", "POST"])
def reset_password(request: HttpRequest) -> HttpResponse:
    """Where a reset mail's link leads (``?uid=…&token=…``): a new password, set through the
    API's ``password-reset/confirm`` service under its ``login`` budget."""
    if request.method == "GET":
        initial = {"uid": request.GET.get("uid", ""), "token": request.GET.get("token", "")}
        return render(
            request, "web/reset_password.html", {"form": PasswordResetForm(initial=initial)}
        )
    form = PasswordResetForm(request.POST)
    if (wait := scope_refusal(request, "login")) is not None:
        return _throttled(request, "web/reset_password.html", form, wait)
    if form.is_valid() and form.save():
        return render(request, "web/reset_password.html", {"done": True})
    return render(request, "web/reset_password.html", {"form": form}, status=400)


@never_cache
@ensure_csrf_cookie
@login_required(login_url=LOGIN_URL)
def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "web/lobby.html")


@never_cache
@ensure_csrf_cookie
@login_required(login_url=LOGIN_URL)
def match_page(request: HttpRequest, match_id: str) -> HttpResponse:
    try:
        parsed = uuid.UUID(match_id)
    except ValueError:
        raise Http404(gettext("No match with this id.")) from None
    # How each game is drawn comes from its record in the catalogue, embedded as JSON.
    context = {"match_id": str(parsed), "drawings": web_drawings()}
    return render(request, "web/match.html", context)


@never_cache
def profile_page(request: HttpRequest, username: str) -> HttpResponse:
    """A player's public profile (GET /api/v1/players/{username})."""
    return render(request, "web/profile.html", {"username": username})


@never_cache
@ensure_csrf_cookie
@login_required(login_url=LOGIN_URL)
def tokens_page(request: HttpRequest) -> HttpResponse:
    """The user's API tokens (GET/POST /api/v1/accounts/me/tokens, DELETE one)."""
    scopes = [(scope, gettext(description)) for scope, description in DESCRIPTIONS.items()]
    return render(request, "web/tokens.html", {"scopes": scopes})


@never_cache
def ladder_page(request: HttpRequest, game: str) -> HttpResponse:
    """A game's ladder (GET /api/v1/ladders/{game}), rendered here; public."""
    board = ladder_board(game)
    engine = get_engine(game)
    if board is None or engine is None:
        raise Http404(gettext("No such game."))
    ladders = [(other.slug, other.name) for other in engines() if other.slug != game]
    context = {"board": board, "title": engine.name, "ladders": ladders}
    return render(request, "web/ladder.html", context)


@never_cache
def leaderboard_page(request: HttpRequest) -> HttpResponse:
    """A game's leaderboard (GET /api/v1/games/{slug}/leaderboard); public."""
    return render(request, "web/leaderboard.html")


@never_cache
@login_required(login_url=LOGIN_URL)
def series_page(request: HttpRequest, series_id: str) -> HttpResponse:
    try:
        parsed = uuid.UUID(series_id)
    except ValueError:
        raise Http404(gettext("No series with this id.")) from None
    return render(request, "web/series.html", {"series_id": str(parsed)})


@never_cache
@ensure_csrf_cookie
@login_required(login_url=LOGIN_URL)
def tournaments_page(request: HttpRequest) -> HttpResponse:
    """The tournaments (GET/POST /api/v1/tournaments): the lists and the creation form."""
    return render(request, "web/tournaments.html")


@never_cache
@ensure_csrf_cookie
@login_required(login_url=LOGIN_URL)
def tournament_page(request: HttpRequest, tournament_id: str) -> HttpResponse:
    """One tournament: settings, standings, crosstable, rounds, events, the organiser's controls
    (shown when the API's ``you.is_organiser`` says so; the API checks every action again)."""
    try:
        parsed = uuid.UUID(tournament_id)
    except ValueError:
        raise Http404(gettext("No tournament with this id.")) from None
    return render(request, "web/tournament.html", {"tournament_id": str(parsed)})


def asset(request: HttpRequest, path: str) -> HttpResponseBase:
    """The client's CSS, JavaScript, icons and manifest, served by Django itself in every run
    mode (no collectstatic, no DEBUG): small files, revalidated with Last-Modified."""
    return small_file_response(request, ASSETS, path, cache_control="no-cache")


def service_worker(request: HttpRequest) -> HttpResponseBase:
    """The Web Push service worker, at the site's root so its scope is every page."""
    response = small_file_response(request, ASSETS, "sw.js", cache_control="no-cache")
    response["Service-Worker-Allowed"] = "/"
    return response


def favicon(request: HttpRequest) -> HttpResponseBase:
    """/favicon.ico, which browsers ask for on every site: a small face-down card."""
    return small_file_response(
        request, ASSETS, "favicon.ico", cache_control="public, max-age=86400"
    )


#: The client's JavaScript strings in the page's language (``gettext()`` in web/static/web/).
#: Revalidated like the assets: the catalogue changes with the language and a deployment.
javascript_catalogue = never_cache(JavaScriptCatalog.as_view(domain="djangojs"))
