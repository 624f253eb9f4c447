"""Settings, all from environment variables (docs/deployment.md has the table).

Two modes (``FACEDOWN_MODE``). ``embedded`` (what ``scripts/run`` sets) runs on a SQLite file
under ``var/`` with no Redis and generates what it lacks. ``production`` (the default) refuses to
start while a setting every machine must share is missing (``core/checks.py``,
``games/checks.py``): ``DJANGO_SECRET_KEY``, ``DATABASE_URL``, ``REDIS_URL``,
``DJANGO_ALLOWED_HOSTS`` and the receipt-signing key. ``DJANGO_DEBUG`` relaxes those checks too.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("FACEDOWN_VAR_DIR", BASE_DIR / "var"))


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_secret(name: str) -> str:
    """``$NAME``, or else the contents of the file ``$NAME_FILE`` names (a mounted secret such
    as ``/run/secrets/...``); empty when neither is set."""
    value = os.environ.get(name, "").strip()
    path = os.environ.get(f"{name}_FILE", "").strip()
    if value or not path:
        return value
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ImproperlyConfigured(f"{name}_FILE={path} cannot be read: {exc}") from exc


DEBUG = _env_bool("DJANGO_DEBUG", False)
FACEDOWN_MODE = os.environ.get("FACEDOWN_MODE", "").strip().lower() or "production"
# Development and the embedded mode may fall back to defaults no deployment can share.
FACEDOWN_RELAXED = DEBUG or FACEDOWN_MODE == "embedded"
# Public, so a production start with it is refused (facedown.E001).
DEVELOPMENT_SECRET_KEY = "facedown-insecure-development-key"
SECRET_KEY = _env_secret("DJANGO_SECRET_KEY") or DEVELOPMENT_SECRET_KEY
ALLOWED_HOSTS = [
    host.strip()
    for host in os.environ.get("DJANGO_ALLOWED_HOSTS", "*" if FACEDOWN_RELAXED else "").split(",")
    if host.strip()
]

INSTALLED_APPS = [
    # The console first, so its admin/base_site.html (its stylesheet on every console page) is
    # found before Django's; then Django's admin with the console's site as ``admin.site``.
    "console.apps.ConsoleConfig",
    "console.apps.ConsoleAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "accounts",
    "games",
    "notify",
    "social",
    "tournaments",
    "ladder",
    "moderation",
    "web",
]

# The whole chain, declared once, outermost first.
MIDDLEWARE = [
    # It times the whole stack, sets the request id before anything logs, and answers /healthz,
    # /readyz and /metrics before host checks, sessions and redirects (docs/observability.md).
    "observability.middleware.ObservabilityMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # CORS for /api/ from FACEDOWN_CORS_ORIGINS (below).
    "corsheaders.middleware.CorsMiddleware",
    # Static files (the operator console's CSS) in every mode, DEBUG or not (docs/deployment.md).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.input.BodyLimitMiddleware",
    # Sessions, the session user and messages are Django's, skipped for /api/ requests that
    # carry "Authorization: Token ..." (core/token_requests.py); cookie requests keep all of
    # them. Django's CSRF middleware stays for every request.
    "core.token_requests.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "core.token_requests.AuthenticationMiddleware",
    # The player's language for pages, never for /api/ (core/languages.py says why).
    "core.languages.PageLanguageMiddleware",
    "core.token_requests.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "web.context.catalogue_words",
            ]
        },
    }
]


_default_sqlite = f"sqlite:///{VAR_DIR / 'facedown.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        _env_secret("DATABASE_URL") or _default_sqlite,
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        # A persistent connection is checked (one `SELECT 1`) before a request's first query,
        # so one that PostgreSQL dropped (a restart, a failover) is replaced instead of failing
        # that request: the web processes recover without a restart. docs/reliability.md.
        conn_health_checks=_env_bool("DB_CONN_HEALTH_CHECKS", True),
    )
}
FACEDOWN_DB_SOCKET_CHECKS = False
# "transaction": PostgreSQL is reached through a transaction-mode pooler (PgBouncer), where a
# session is not the client's own: no prepared statements, no server-side cursors, and the
# unit of work's transaction without its pipelined shortcuts (core/postgresql/session.py).
FACEDOWN_DB_POOLER = os.environ.get("FACEDOWN_DB_POOLER", "").strip().lower()
if FACEDOWN_DB_POOLER not in ("", "transaction"):
    raise ImproperlyConfigured("FACEDOWN_DB_POOLER must be empty or 'transaction'")
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    _server_side_binding = _env_bool("DB_SERVER_SIDE_BINDING", True)
    DATABASES["default"]["OPTIONS"] = {
        # Parameters bound by the server, not quoted into the SQL text in Python: cheaper on
        # every query.
        "server_side_binding": _server_side_binding,
        # The unit of work's two statements (the match lock, the change's write) are prepared
        # statements (core/postgresql/own.py asks psycopg with ``prepare=True``): PostgreSQL
        # stops parsing and planning them on every move. Nothing is prepared by itself (the
        # threshold is never reached: generic plans hurt skewed lists); None turns preparing
        # off, as behind a transaction-mode pooler (docs/deployment.md).
        "prepare_threshold": (
            2**31 - 1
            if _server_side_binding
            and _env_bool("DB_PREPARED_STATEMENTS", True)
            and not FACEDOWN_DB_POOLER
            else None
        ),
        # A database that does not answer a connection attempt fails it (503, Retry-After)
        # after this many seconds instead of holding the request.
        "connect_timeout": int(os.environ.get("DB_CONNECT_TIMEOUT", "5")),
    }
    # Django's backend with orjson for jsonb (core/postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "core.postgresql"
    # Kept connections are checked by asking their socket at each request's start, not the
    # server (`SELECT 1`, one round trip per request): core/postgresql/health.py.
    FACEDOWN_DB_SOCKET_CHECKS = DATABASES["default"]["CONN_HEALTH_CHECKS"]
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
    # A named cursor lives in its session, which a transaction-mode pooler hands on to another
    # client between transactions (Django's "Transaction pooling and server-side cursors").
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = bool(FACEDOWN_DB_POOLER)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run beside the one writer; IMMEDIATE takes the write lock at BEGIN so
    # two writers queue on the busy timeout instead of failing with "database is locked".
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": int(os.environ.get("FACEDOWN_PASSWORD_MIN_LENGTH", "10"))},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Usernames log in regardless of case (accounts/backends.py). Django's own backend stays listed
# because the browser sign-up logs the new user in through it by name.
AUTHENTICATION_BACKENDS = [
    "accounts.backends.CaseInsensitiveModelBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# Password reset by e-mail: the link's lifetime, its address (``{uid}`` and ``{token}`` are
# filled in; empty: the web client's page, FACEDOWN_PUBLIC_URL + /reset-password), and how mail
# leaves (the console backend prints it unless told otherwise).
PASSWORD_RESET_TIMEOUT = int(os.environ.get("FACEDOWN_PASSWORD_RESET_SECONDS", "3600"))
FACEDOWN_PASSWORD_RESET_URL = os.environ.get("FACEDOWN_PASSWORD_RESET_URL", "")
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "facedown@localhost")

# Languages (docs/languages.md): a player's profile choice, else the browser's Accept-Language,
# else English. Adding one: its catalogues under locale/ and a line here.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        # core.cache: Django's cache API on one redis-py client, and a one-round-trip counter.
        "default": {
            "BACKEND": "core.cache.RedisCache",
            "LOCATION": REDIS_URL,
            # A Redis that stops answering fails the call within this many seconds (throttles,
            # idempotency keys, caches) instead of holding the request.
            "OPTIONS": {
                "socket_timeout": float(os.environ.get("FACEDOWN_REDIS_SOCKET_TIMEOUT", "2")),
                "socket_connect_timeout": float(
                    os.environ.get("FACEDOWN_REDIS_CONNECT_TIMEOUT", "2")
                ),
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

REST_FRAMEWORK = {
    # Token first, so a missing or bad token answers 401 with WWW-Authenticate: Token.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.AccessTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # A token request may do only what its token's scopes allow (accounts/scopes.py).
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.scopes.ScopesAllow",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.input.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "core.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.problems.problem_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "core.throttling.AnonRateThrottle",
        "core.throttling.UserRateThrottle",
        "core.throttling.ScopedRateThrottle",
    ],
    # Per user (or per client address when anonymous) and window; docs/design.md, "Abuse".
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("FACEDOWN_THROTTLE_ANON", "120/min"),
        "user": os.environ.get("FACEDOWN_THROTTLE_USER", "6000/min"),
        "login": os.environ.get("FACEDOWN_THROTTLE_LOGIN", "60/hour"),
        "register": os.environ.get("FACEDOWN_THROTTLE_REGISTER", "20/hour"),
        # Account changes, notification settings, and the revocations that need a password
        # (rotation, password change), each on its own budget: spending one never blocks
        # another, and logout is never throttled (docs/reliability.md, "Abuse limits").
        "account": os.environ.get("FACEDOWN_THROTTLE_ACCOUNT", "60/hour"),
        "notify": os.environ.get("FACEDOWN_THROTTLE_NOTIFY", "300/hour"),
        "revoke": os.environ.get("FACEDOWN_THROTTLE_REVOKE", "120/hour"),
        "match_create": os.environ.get("FACEDOWN_THROTTLE_MATCH_CREATE", "120/hour"),
        "moves": os.environ.get("FACEDOWN_THROTTLE_MOVES", "600/min"),
        "reads": os.environ.get("FACEDOWN_THROTTLE_READS", "3000/min"),
        # Challenges sent and answered; bulk pairings (each up to 500 matches) apart.
        "challenges": os.environ.get("FACEDOWN_THROTTLE_CHALLENGES", "300/hour"),
        "bulk_pairing": os.environ.get("FACEDOWN_THROTTLE_BULK_PAIRING", "10/hour"),
    },
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Facedown API",
    "DESCRIPTION": (
        "Play-by-web card games with sealed moves and hidden information. "
        "Errors are RFC 9457 problem+json documents with a stable `code`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and the docs are public, like /games: they read no credentials, so a stale or
    # deactivated token cannot turn them into a 401 (which their YAML and HTML renderers would
    # send as a body that is not problem+json).
    "SERVE_AUTHENTICATION": [],
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI and ReDoc come from the installed drf-spectacular-sidecar package, not a CDN, so
    # the docs work without internet; config/urls.py serves its files in every run mode.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.problem_schema",
        "games.api.body_schemas.shape_components",
        "games.api.schema.nullable_refs",
        "games.api.event_schema.event_catalogue",
    ],
}

# How many reverse proxies in front of the web processes append to X-Forwarded-For
# (core/client_address.py). 0: the header is ignored and the socket's address is the client.
FACEDOWN_TRUSTED_PROXY_HOPS = int(os.environ.get("FACEDOWN_TRUSTED_PROXY_HOPS", "0"))

# Per-account login lockout (accounts/lockout.py): from the FAILURES-th failed login for one
# username on, each failure locks it for a delay that starts at FACEDOWN_LOGIN_LOCKOUT_BASE
# seconds and doubles, up to FACEDOWN_LOGIN_LOCKOUT_MAX. Failures are forgotten
# FACEDOWN_LOGIN_LOCKOUT_WINDOW seconds after the first one, and on a successful login.
FACEDOWN_LOGIN_LOCKOUT_FAILURES = int(os.environ.get("FACEDOWN_LOGIN_LOCKOUT_FAILURES", "5"))
FACEDOWN_LOGIN_LOCKOUT_BASE = int(os.environ.get("FACEDOWN_LOGIN_LOCKOUT_BASE", "1"))
FACEDOWN_LOGIN_LOCKOUT_MAX = int(os.environ.get("FACEDOWN_LOGIN_LOCKOUT_MAX", "900"))
FACEDOWN_LOGIN_LOCKOUT_WINDOW = int(os.environ.get("FACEDOWN_LOGIN_LOCKOUT_WINDOW", "86400"))
# Request limits (docs/api.md, "Conventions"): a larger body answers 413 payload_too_large,
# JSON nested deeper answers 400 parse_error.
FACEDOWN_MAX_BODY_BYTES = int(os.environ.get("FACEDOWN_MAX_BODY_BYTES", str(64 * 1024)))
FACEDOWN_MAX_JSON_DEPTH = int(os.environ.get("FACEDOWN_MAX_JSON_DEPTH", "32"))
# Django's own limit on anything else that reads the body (forms, the operator console).
DATA_UPLOAD_MAX_MEMORY_SIZE = FACEDOWN_MAX_BODY_BYTES

# Seconds a token lookup is cached per process; a reset token stops working within this time.
FACEDOWN_TOKEN_CACHE_SECONDS = int(os.environ.get("FACEDOWN_TOKEN_CACHE_SECONDS", "30"))
# A process writes when its tokens were last used at most this often (accounts/authentication.py).
FACEDOWN_TOKEN_LAST_USED_SECONDS = float(os.environ.get("FACEDOWN_TOKEN_LAST_USED_SECONDS", "60"))
# How long Idempotency-Key answers are kept.
FACEDOWN_IDEMPOTENCY_TTL_SECONDS = 24 * 3600

# A key still "in progress" after this long belongs to a request that died: it may be reused.
FACEDOWN_IDEMPOTENCY_ABANDONED_SECONDS = 120

# Ed25519 key signing move receipts (docs/fairness.md, "Keys"; docs/deployment.md, "Keys"): 64
# hex characters of the raw private key; when empty, read from FACEDOWN_SIGNING_KEY_FILE (a
# mounted secret). Every web process and worker must use the same key, so only the relaxed
# modes generate one (in var/, mode 0600, on first use); production refuses to start without.
FACEDOWN_SIGNING_KEY = os.environ.get("FACEDOWN_SIGNING_KEY", "").strip()
_signing_key_file = os.environ.get("FACEDOWN_SIGNING_KEY_FILE", "").strip()
FACEDOWN_SIGNING_KEY_FILE: Path | None = (
    Path(_signing_key_file)
    if _signing_key_file
    else (VAR_DIR / "signing-key" if FACEDOWN_RELAXED else None)
)
FACEDOWN_SIGNING_KEY_GENERATE = FACEDOWN_RELAXED
# Retired keys whose receipts must still verify: comma-separated hex public keys.
FACEDOWN_SIGNING_OLD_PUBLIC_KEYS = [
    key.strip()
    for key in os.environ.get("FACEDOWN_SIGNING_OLD_PUBLIC_KEYS", "").split(",")
    if key.strip()
]

# Bots and deadlines: "celery" (the full stack, with Redis) or "embedded" (one worker thread in
# the web process, started by `manage.py serve`; the default without Redis).
FACEDOWN_TASK_RUNNER = os.environ.get("FACEDOWN_TASK_RUNNER", "celery" if REDIS_URL else "embedded")
# Shortest per-step time limit the API accepts. Settings only: tests lower it.
FACEDOWN_MIN_STEP_SECONDS = int(os.environ.get("FACEDOWN_MIN_STEP_SECONDS", "10"))
# Deadlines nearer than this get a task at the deadline; later ones wait for the sweep.
FACEDOWN_DEADLINE_TASK_HORIZON_SECONDS = 15 * 60
# The vacation bank (docs/api.md, "Vacations"): earned through the year, capped, with an
# allowance for a new account; an automatic vacation takes at most this many days.
FACEDOWN_VACATION_DAYS_PER_YEAR = float(os.environ.get("FACEDOWN_VACATION_DAYS_PER_YEAR", "30"))
FACEDOWN_VACATION_CAP_DAYS = float(os.environ.get("FACEDOWN_VACATION_CAP_DAYS", "30"))
FACEDOWN_VACATION_INITIAL_DAYS = float(os.environ.get("FACEDOWN_VACATION_INITIAL_DAYS", "7"))
FACEDOWN_AUTO_VACATION_DAYS = float(os.environ.get("FACEDOWN_AUTO_VACATION_DAYS", "3"))
# Check every emitted event against the catalogue's payload schema (games/events.py). On in
# tests; off in production, where the types already checked the code that emits.
FACEDOWN_CHECK_EVENTS = os.environ.get("FACEDOWN_CHECK_EVENTS", "0") == "1"
# How long a proposed pause or abort waits for the other seated players' answers (seconds).
FACEDOWN_PROPOSAL_SECONDS = int(os.environ.get("FACEDOWN_PROPOSAL_SECONDS", str(48 * 3600)))
# How often the sweep looks for overdue steps and bot seats whose task was lost.
FACEDOWN_SWEEP_SECONDS = float(os.environ.get("FACEDOWN_SWEEP_SECONDS", "5"))
# A bot seat still waiting this long after its step opened is nudged by the sweep.
FACEDOWN_BOT_STALL_SECONDS = float(os.environ.get("FACEDOWN_BOT_STALL_SECONDS", "10"))

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# ETA tasks (live deadlines) fire within this many seconds of their time.
CELERY_WORKER_TIMER_PRECISION = 0.1
# The broker may restart or vanish (docs/reliability.md, "Redis and workers"). A worker keeps
# reconnecting, at start-up too, for as long as it takes; its tasks are idempotent, so one cut
# off by a lost connection is cancelled and redelivered.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Unacknowledged tasks come back after ``visibility_timeout``; ETA tasks are never scheduled
# further ahead. The socket options bound every broker call (a hung Redis fails, it does not
# hang), and the health check finds a dead connection before a command has to. Redis has no
# AMQP heartbeats; the health check is its equivalent.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 3600,
    "health_check_interval": 10,
    "socket_timeout": 5,
    "socket_connect_timeout": 2,
    "socket_keepalive": True,
    "retry_on_timeout": True,
}
# A request publishes its follow-up jobs after its change committed: with the broker down it
# gives up within a second and leaves them to the sweep rather than keep the player waiting.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
# A task that runs away is stopped (prefork pool; the solo pool cannot interrupt a task), and
# a worker process is replaced now and then so a slow leak cannot grow for ever.
CELERY_TASK_SOFT_TIME_LIMIT = 60
CELERY_TASK_TIME_LIMIT = 90
CELERY_WORKER_MAX_TASKS_PER_CHILD = 1000
# Every worker sweeps on its own timer too (config/celery.py): beat is not needed for
# deadlines to expire, and several sweepers share the overdue matches (SKIP LOCKED).
FACEDOWN_WORKER_SWEEPS = _env_bool("FACEDOWN_WORKER_SWEEPS", True)
# The database session of a worker: a statement or a lock wait longer than this fails the task,
# which retries, instead of hanging the worker (set when a worker starts, config/celery.py).
FACEDOWN_WORKER_STATEMENT_TIMEOUT_MS = int(
    os.environ.get("FACEDOWN_WORKER_STATEMENT_TIMEOUT_MS", "30000")
)
FACEDOWN_WORKER_LOCK_TIMEOUT_MS = int(os.environ.get("FACEDOWN_WORKER_LOCK_TIMEOUT_MS", "10000"))
# The same for a web request: a move waiting on a match another session holds longer than this
# is answered 503 service_unavailable with Retry-After (core/postgresql/session.py sends them
# with each change's BEGIN; `manage.py database_role_timeouts` makes them a role's defaults).
FACEDOWN_WEB_STATEMENT_TIMEOUT_MS = int(
    os.environ.get("FACEDOWN_WEB_STATEMENT_TIMEOUT_MS", "10000")
)
FACEDOWN_WEB_LOCK_TIMEOUT_MS = int(os.environ.get("FACEDOWN_WEB_LOCK_TIMEOUT_MS", "3000"))
# A web request still running after this many seconds is logged, with its route and request
# id, by a watchdog thread in each web process (observability/watchdog.py); 0: no watchdog.
FACEDOWN_REQUEST_WATCHDOG_SECONDS = float(os.environ.get("FACEDOWN_REQUEST_WATCHDOG_SECONDS", "30"))
CELERY_BEAT_SCHEDULE = {
    "overdue-sweep": {"task": "games.tasks.overdue_sweep_task", "schedule": FACEDOWN_SWEEP_SECONDS},
}


# --- Observability: probes, metrics, logs, error reports (docs/observability.md) ---
INSTALLED_APPS += ["observability"]
# /metrics: readable with this bearer token, or from these networks (comma-separated CIDRs;
# the client's address as FACEDOWN_TRUSTED_PROXY_HOPS finds it). Neither set: 404.
FACEDOWN_METRICS_TOKEN = os.environ.get("FACEDOWN_METRICS_TOKEN", "")
FACEDOWN_METRICS_NETWORKS = [
    cidr.strip()
    for cidr in os.environ.get("FACEDOWN_METRICS_NETWORKS", "").split(",")
    if cidr.strip()
]
# A Celery worker serves its own counters (bot and timeout moves) on this port when set, at
# this address (no token: an internal interface only). observability/worker_metrics.py.
FACEDOWN_WORKER_METRICS_PORT = int(os.environ.get("FACEDOWN_WORKER_METRICS_PORT", "0"))
FACEDOWN_WORKER_METRICS_ADDR = os.environ.get("FACEDOWN_WORKER_METRICS_ADDR", "127.0.0.1")
# "json" (one object per line, for production) or "text" (the embedded default).
LOG_FORMAT = "json" if os.environ.get("LOG_FORMAT", "text").strip().lower() == "json" else "text"
# One INFO line per request (method, route name, status, duration, request id, user id).
FACEDOWN_ACCESS_LOG = _env_bool("FACEDOWN_ACCESS_LOG", True)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "observability.request_id.RequestIdFilter"}},
    "formatters": {
        "json": {"()": "observability.logs.JsonFormatter"},
        "text": {"()": "observability.logs.TextFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        "facedown.access": {"level": "INFO" if FACEDOWN_ACCESS_LOG else "WARNING"},
        # A client's 4xx is its own mistake, in the access log with its status; Django would
        # add a WARNING line for each ("Bad Request: /api/..."). Its 5xx ERRORs stay.
        "django.request": {"level": "ERROR"},
    },
}
# Error reports: off unless SENTRY_DSN is set (observability/sentry.py says what is sent).
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
SENTRY_ENVIRONMENT = os.environ.get("SENTRY_ENVIRONMENT", "")
SENTRY_RELEASE = os.environ.get("SENTRY_RELEASE", "")
SENTRY_TRACES_SAMPLE_RATE = float(os.environ.get("SENTRY_TRACES_SAMPLE_RATE", "0"))

# --- Notifications (notify/, docs/notifications.md) ---
# How often the periodic job looks for moves due within 24 h / 1 h (deadline_soon).
FACEDOWN_DEADLINE_SOON_SCAN_SECONDS = float(
    os.environ.get("FACEDOWN_DEADLINE_SOON_SCAN_SECONDS", "60")
)
CELERY_BEAT_SCHEDULE["deadline-soon-scan"] = {
    "task": "notify.tasks.deadline_soon_scan_task",
    "schedule": FACEDOWN_DEADLINE_SOON_SCAN_SECONDS,
}
# --- Tournaments (tournaments/, docs/api.md "Tournaments") ---
# How often the periodic job starts due tournaments, applies round limits, and opens rounds
# whose previous round ended (a lost job is picked up by the next sweep).
FACEDOWN_TOURNAMENT_SWEEP_SECONDS = float(os.environ.get("FACEDOWN_TOURNAMENT_SWEEP_SECONDS", "60"))
CELERY_BEAT_SCHEDULE["tournaments-sweep"] = {
    "task": "tournaments.tasks.tournaments_sweep_task",
    "schedule": FACEDOWN_TOURNAMENT_SWEEP_SECONDS,
}
# How often every running arena pairs its free players (a wave also follows each finished
# match of an arena; docs/tournament-pairing.md, "Arena").
FACEDOWN_ARENA_WAVE_SECONDS = float(os.environ.get("FACEDOWN_ARENA_WAVE_SECONDS", "2"))
# How many arenas (in registration or running) one account may be in at once.
FACEDOWN_ARENA_ENTRIES_PER_ACCOUNT = int(os.environ.get("FACEDOWN_ARENA_ENTRIES_PER_ACCOUNT", "3"))
CELERY_BEAT_SCHEDULE["arena-waves"] = {
    "task": "tournaments.tasks.arena_waves_task",
    "schedule": FACEDOWN_ARENA_WAVE_SECONDS,
}
# --- The bot ladder (ladder/, docs/bots.md "The ladder") ---
# How often a pairing wave seats the free entrants (one also follows each ladder match's end).
FACEDOWN_LADDER_PAIR_SECONDS = float(os.environ.get("FACEDOWN_LADDER_PAIR_SECONDS", "10"))
CELERY_BEAT_SCHEDULE["ladder-pair"] = {
    "task": "ladder.tasks.ladder_pair_task",
    "schedule": FACEDOWN_LADDER_PAIR_SECONDS,
}
# How often the standalone verifier checks the finished ladder matches' transcripts.
FACEDOWN_LADDER_VERIFY_SECONDS = float(os.environ.get("FACEDOWN_LADDER_VERIFY_SECONDS", "300"))
CELERY_BEAT_SCHEDULE["ladder-verify"] = {
    "task": "ladder.tasks.ladder_verify_task",
    "schedule": FACEDOWN_LADDER_VERIFY_SECONDS,
}
# Two entrants who met within this many seconds meet again only if otherwise one would wait.
FACEDOWN_LADDER_REMATCH_SECONDS = float(os.environ.get("FACEDOWN_LADDER_REMATCH_SECONDS", "3600"))
# Ladders (games) one account may be entered on at once.
FACEDOWN_LADDER_MAX_ENTRIES = int(os.environ.get("FACEDOWN_LADDER_MAX_ENTRIES", "5"))
# The most ladder matches at once an entry may ask for (its max_concurrent).
FACEDOWN_LADDER_MAX_CONCURRENT = int(os.environ.get("FACEDOWN_LADDER_MAX_CONCURRENT", "4"))
# Ladder matches running at once on the whole server; a wave seats nobody past it.
FACEDOWN_LADDER_MAX_MATCHES = int(os.environ.get("FACEDOWN_LADDER_MAX_MATCHES", "500"))
# Ladder matches in a row with a missed deadline (or an illegal reveal) that pause an entry.
FACEDOWN_LADDER_STRIKES = int(os.environ.get("FACEDOWN_LADDER_STRIKES", "3"))
# How often sanctions whose end passed are marked over and logged (docs/moderation.md).
FACEDOWN_SANCTIONS_SWEEP_SECONDS = float(os.environ.get("FACEDOWN_SANCTIONS_SWEEP_SECONDS", "300"))
CELERY_BEAT_SCHEDULE["sanctions-running-out"] = {
    "task": "moderation.tasks.sanctions_running_out_task",
    "schedule": FACEDOWN_SANCTIONS_SWEEP_SECONDS,
}
# Where links in mail point (the web client's and API's public address).
FACEDOWN_PUBLIC_URL = os.environ.get("FACEDOWN_PUBLIC_URL", "http://127.0.0.1:8000")
# At most one "your move" mail per user per this many seconds, listing every match waiting.
FACEDOWN_MAIL_YOUR_MOVE_INTERVAL = int(os.environ.get("FACEDOWN_MAIL_YOUR_MOVE_INTERVAL", "1800"))
# How long an address verification link works.
FACEDOWN_EMAIL_VERIFY_SECONDS = int(os.environ.get("FACEDOWN_EMAIL_VERIFY_SECONDS", "259200"))
# At most this many verification mails to one address per UTC day (accounts/verification_limit.py).
FACEDOWN_EMAIL_VERIFY_PER_ADDRESS = int(os.environ.get("FACEDOWN_EMAIL_VERIFY_PER_ADDRESS", "5"))
# Webhooks: attempts per delivery, the first retry's delay (doubling after), the request
# timeout, and how many deliveries in a row may give up before the hook is disabled.
FACEDOWN_WEBHOOK_ATTEMPTS = int(os.environ.get("FACEDOWN_WEBHOOK_ATTEMPTS", "6"))
FACEDOWN_WEBHOOK_RETRY_BASE_SECONDS = float(
    os.environ.get("FACEDOWN_WEBHOOK_RETRY_BASE_SECONDS", "30")
)
FACEDOWN_WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("FACEDOWN_WEBHOOK_TIMEOUT_SECONDS", "5"))
FACEDOWN_WEBHOOK_DISABLE_AFTER = int(os.environ.get("FACEDOWN_WEBHOOK_DISABLE_AFTER", "5"))
# Webhook and Web Push targets on private, loopback or link-local addresses are refused unless
# this is on (tests; a closed network whose receivers are private).
FACEDOWN_WEBHOOK_ALLOW_PRIVATE = _env_bool("FACEDOWN_WEBHOOK_ALLOW_PRIVATE", False)
# Web Push (VAPID): one key pair for every machine (`manage.py vapid_keys` makes one), base64url;
# empty: no Web Push. The subject is a contact URL or mailto: for push services.
FACEDOWN_VAPID_PRIVATE_KEY = os.environ.get("FACEDOWN_VAPID_PRIVATE_KEY", "")
FACEDOWN_VAPID_PUBLIC_KEY = os.environ.get("FACEDOWN_VAPID_PUBLIC_KEY", "")
FACEDOWN_VAPID_SUBJECT = os.environ.get("FACEDOWN_VAPID_SUBJECT", "mailto:facedown@localhost")
# The notification (webhook payload) and its types in the OpenAPI document.
_schema_hooks = SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]
assert isinstance(_schema_hooks, list)
_schema_hooks.append("notify.schema.notification_schema")
# SMTP, when EMAIL_BACKEND is django.core.mail.backends.smtp.EmailBackend (docs/notifications.md).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _env_bool("EMAIL_USE_TLS", False)

# --- Production: static files, proxy and TLS (docs/deployment.md) ---
# The broker may live apart from the cache (a Redis with persistence on, or another database of
# one Redis); REDIS_URL is the default for both.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "").strip() or CELERY_BROKER_URL
# WhiteNoise serves what `collectstatic` gathered into STATIC_ROOT (the image does it at build,
# compressed) and, through the finders, every app's files without it, so `scripts/run` needs no
# collect step. No manifest: templates render the same whether or not files were collected.
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", "").strip() or VAR_DIR / "static")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
# Nothing collected (scripts/run, the tests): the finders serve everything; no need to warn.
warnings.filterwarnings("ignore", message=f"No directory at: {re.escape(str(STATIC_ROOT))}")
# X-Forwarded-Proto is believed only when a proxy we run sets it: the same number of hops that
# core/client_address.py trusts for X-Forwarded-For. Without one, a client could claim https.
if FACEDOWN_TRUSTED_PROXY_HOPS > 0:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Origins (scheme://host[:port]) whose unsafe browser requests pass CSRF, e.g. the public https
# address when a proxy terminates TLS.
CSRF_TRUSTED_ORIGINS = [
    origin.strip()
    for origin in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",")
    if origin.strip()
]
# HTTPS by default outside the relaxed modes: cookies only over https, HSTS on https answers
# (SecurityMiddleware sends it only there). The redirect to https is the proxy's job unless
# asked for; health checks and metrics are scraped over plain http inside the network.
SESSION_COOKIE_SECURE = _env_bool("DJANGO_SECURE_COOKIES", not FACEDOWN_RELAXED)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = int(
    os.environ.get("DJANGO_SECURE_HSTS_SECONDS", "0" if FACEDOWN_RELAXED else "31536000")
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = _env_bool("DJANGO_SECURE_HSTS_PRELOAD", False)
SECURE_SSL_REDIRECT = _env_bool("DJANGO_SECURE_SSL_REDIRECT", False)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
# Checks a deployment has decided to live with, comma separated (e.g. security.W021 when the
# domain is not on the HSTS preload list).
SILENCED_SYSTEM_CHECKS = [
    check.strip()
    for check in os.environ.get("DJANGO_SILENCED_SYSTEM_CHECKS", "").split(",")
    if check.strip()
]

# --- Shared token revocation ---
# Before answering from its token cache, a web process reads the revocations recorded since its
# last look (accounts/revocation.py) when that look is older than this: a logout, token reset,
# password change or deactivation on any machine is refused by every machine within it.
FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS = float(
    os.environ.get("FACEDOWN_TOKEN_REVOCATION_POLL_SECONDS", "1")
)

# --- Seeks, chat, CORS ---
# An open seek waits this many seconds for opponents, then expires.
FACEDOWN_SEEK_TTL = int(os.environ.get("FACEDOWN_SEEK_TTL", "1800"))
# Seconds a challenge waits for its answer unless it says otherwise (docs/programs.md).
FACEDOWN_CHALLENGE_TTL = int(os.environ.get("FACEDOWN_CHALLENGE_TTL", str(7 * 86400)))
# The house bot in a challenge's seats beyond the challenger and the challenged.
FACEDOWN_CHALLENGE_FILL_BOT = os.environ.get("FACEDOWN_CHALLENGE_FILL_BOT", "expert")
# Challenges and invitations one account may send another an hour, from every source together:
# challenges, bulk pairings, match invitations, seat offers, rematches, tournament invitations.
FACEDOWN_INVITATIONS_PER_HOUR = int(os.environ.get("FACEDOWN_INVITATIONS_PER_HOUR", "10"))
# Proposals (pause, abort) one seat may make in one match an hour, withdrawn ones counted.
FACEDOWN_PROPOSALS_PER_HOUR = int(os.environ.get("FACEDOWN_PROPOSALS_PER_HOUR", "5"))
FACEDOWN_CHAT_MAX_LENGTH = int(os.environ.get("FACEDOWN_CHAT_MAX_LENGTH", "500"))
_throttle_rates: dict[str, str] = REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]  # type: ignore[assignment]
_throttle_rates["chat"] = os.environ.get("FACEDOWN_THROTTLE_CHAT", "20/min")
# Reports and appeals a player may file (docs/moderation.md).
_throttle_rates["reports"] = os.environ.get("FACEDOWN_THROTTLE_REPORTS", "10/hour")
_enum_names: dict[str, object] = SPECTACULAR_SETTINGS.setdefault("ENUM_NAME_OVERRIDES", {})  # type: ignore[assignment]
_enum_names["SeekStatusEnum"] = "social.models.Seek.Status"
_enum_names["ChallengeStatusEnum"] = "social.models.Challenge.Status"
_enum_names["DeclineReasonEnum"] = "games.models.DeclineReason"
_enum_names["MatchStatusEnum"] = ["open", "active", "finished", "aborted"]
_enum_names["TournamentStatusEnum"] = ["registering", "running", "paused", "finished", "cancelled"]
_enum_names["LadderEntryStatusEnum"] = "ladder.models.LadderEntry.Status"
_enum_names["EntryStatusEnum"] = ["active", "withdrawn", "disqualified"]
# Names for the choice sets that share a field name ("kind", "reason") across components.
_enum_names["ProposalKindEnum"] = ["pause", "abort"]
_enum_names["ReportKindEnum"] = "moderation.api.serializers.REPORT_KINDS"
_enum_names["ReportReasonEnum"] = "moderation.api.serializers.REPORT_REASONS"
_enum_names["SanctionKindEnum"] = "moderation.api.serializers.SANCTION_KINDS"
# CORS (django-cors-headers): a web client served from another origin may call the API with a
# token. FACEDOWN_CORS_ORIGINS is a comma-separated list of origins ("https://cards.example");
# empty (the default) allows none. Cookies are never sent cross-origin (token auth only).
INSTALLED_APPS.append("corsheaders")
CORS_ALLOWED_ORIGINS = [
    origin.strip()
    for origin in os.environ.get("FACEDOWN_CORS_ORIGINS", "").split(",")
    if origin.strip()
]
CORS_URLS_REGEX = r"^/api/"
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_HEADERS = ["authorization", "content-type", "accept", "idempotency-key", "if-none-match"]
CORS_EXPOSE_HEADERS = ["ETag", "Location", "Retry-After", "WWW-Authenticate"]
CORS_PREFLIGHT_MAX_AGE = 3600

# --- Ratings (games/services/rating_rules.py, docs/api.md "Ratings") ---
# A match ended by a forfeit is rated only if every human seat had this many turns.
FACEDOWN_RATING_MIN_TURNS = int(os.environ.get("FACEDOWN_RATING_MIN_TURNS", "2"))
# Two players' rated matches of a game together, at most this many per window; later ones in
# the window are unrated.
FACEDOWN_RATING_PAIR_LIMIT = int(os.environ.get("FACEDOWN_RATING_PAIR_LIMIT", "3"))
FACEDOWN_RATING_PAIR_WINDOW_HOURS = float(os.environ.get("FACEDOWN_RATING_PAIR_WINDOW_HOURS", "24"))
# The leaderboard lists a player after this many rated matches against this many opponents.
FACEDOWN_LEADERBOARD_MIN_MATCHES = int(os.environ.get("FACEDOWN_LEADERBOARD_MIN_MATCHES", "5"))
FACEDOWN_LEADERBOARD_MIN_OPPONENTS = int(os.environ.get("FACEDOWN_LEADERBOARD_MIN_OPPONENTS", "3"))

# --- Data lifecycle and read replicas (docs/data.md) ---
# A match over for this many days has its moves and events moved into its archive (one
# compressed row); every read answers as before. 0 archives every match that is over.
FACEDOWN_ARCHIVE_AFTER_DAYS = float(os.environ.get("FACEDOWN_ARCHIVE_AFTER_DAYS", "30"))
# How often the purge jobs run (Celery beat; the embedded worker runs them too): expired
# idempotency records and sessions, and the archiving of finished matches.
FACEDOWN_PURGE_SECONDS = float(os.environ.get("FACEDOWN_PURGE_SECONDS", "3600"))
CELERY_BEAT_SCHEDULE["data-purge"] = {
    "task": "games.tasks.data_purge_task",
    "schedule": FACEDOWN_PURGE_SECONDS,
}
# An optional read replica: lists of finished matches, audits of matches over for more than
# FACEDOWN_REPLICA_MIN_AGE_SECONDS, profiles, leaderboards and finished tournaments' standings
# and exports read from it (games/routers.py); every live read and every write stays on the
# primary. A read goes there only while the replica is at most FACEDOWN_REPLICA_MAX_LAG_SECONDS
# behind (measured at most every FACEDOWN_REPLICA_CHECK_SECONDS, the result shared in Redis)
# and has the reader's own last write (games/replica_gate.py); else to the primary.
DATABASE_REPLICA_URL = _env_secret("DATABASE_REPLICA_URL")  # or DATABASE_REPLICA_URL_FILE
FACEDOWN_REPLICA_MIN_AGE_SECONDS = int(os.environ.get("FACEDOWN_REPLICA_MIN_AGE_SECONDS", "60"))
FACEDOWN_REPLICA_MAX_LAG_SECONDS = float(os.environ.get("FACEDOWN_REPLICA_MAX_LAG_SECONDS", "5"))
FACEDOWN_REPLICA_CHECK_SECONDS = float(os.environ.get("FACEDOWN_REPLICA_CHECK_SECONDS", "1"))
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = dj_database_url.parse(
        DATABASE_REPLICA_URL,
        conn_max_age=DATABASES["default"]["CONN_MAX_AGE"],
        conn_health_checks=DATABASES["default"]["CONN_HEALTH_CHECKS"],
    )
    DATABASES["replica"]["OPTIONS"] = dict(DATABASES["default"].get("OPTIONS", {}))
    if DATABASES["replica"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["replica"]["ENGINE"] = "core.postgresql"
    # Tests run against the one test database: the replica alias mirrors it there.
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
# Installed always: without a replica it answers "default" for everything.
DATABASE_ROUTERS = ["games.routers.ReplicaRouter"]
# Who reads and who wrote, for the replica's gate; after the session user is known.
MIDDLEWARE.insert(
    MIDDLEWARE.index("core.token_requests.AuthenticationMiddleware") + 1,
    "games.replica_reader.ReplicaReaderMiddleware",
)

# --- Live updates (live/, docs/live.md) ---
INSTALLED_APPS.append("live")
# The bus carrying committed events to the streams: "redis" (pub/sub, across processes and
# machines) when REDIS_URL is set, else "local" (in-process: the embedded default).
FACEDOWN_LIVE_BUS = os.environ.get("FACEDOWN_LIVE_BUS", "redis" if REDIS_URL else "local")
# A publication never holds a committed move for longer than this (seconds); a lost one is
# logged, and clients find the events on their next read.
FACEDOWN_LIVE_PUBLISH_TIMEOUT = float(os.environ.get("FACEDOWN_LIVE_PUBLISH_TIMEOUT", "0.5"))
FACEDOWN_LIVE_SUBSCRIBE_TIMEOUT = float(os.environ.get("FACEDOWN_LIVE_SUBSCRIBE_TIMEOUT", "5"))
# Seconds between keep-alive comments (SSE) or empty lines (NDJSON) on an idle stream.
FACEDOWN_LIVE_KEEPALIVE_SECONDS = float(os.environ.get("FACEDOWN_LIVE_KEEPALIVE_SECONDS", "15"))
# How long a stream ticket (POST /api/v1/accounts/stream-ticket) opens its streams.
FACEDOWN_LIVE_TICKET_SECONDS = int(os.environ.get("FACEDOWN_LIVE_TICKET_SECONDS", "60"))
# The longest `wait` of the events long-poll.
FACEDOWN_LIVE_MAX_WAIT_SECONDS = 30
# The streams are async views drf-spectacular cannot see: a hook documents them (before the
# hook that adds every operation's problem responses).
SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"] = [
    "live.schema.stream_paths",
    *SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"],  # type: ignore[misc]
]

# --- Performance ---
# Content negotiation without parsing the usual Accept headers (core/negotiation.py).
REST_FRAMEWORK["DEFAULT_CONTENT_NEGOTIATION_CLASS"] = "core.negotiation.ContentNegotiation"

# --- Live limits (live/limits.py, live/slots.py, live/database.py; docs/reliability.md) ---
# Streams and waiting long-polls open at once, per user, per access token and per client
# address, across every ASGI process (Redis); over one: 429 too_many_streams.
FACEDOWN_LIVE_MAX_STREAMS_PER_USER = int(os.environ.get("FACEDOWN_LIVE_MAX_STREAMS_PER_USER", "20"))
FACEDOWN_LIVE_MAX_STREAMS_PER_TOKEN = int(
    os.environ.get("FACEDOWN_LIVE_MAX_STREAMS_PER_TOKEN", "10")
)
FACEDOWN_LIVE_MAX_STREAMS_PER_ADDRESS = int(
    os.environ.get("FACEDOWN_LIVE_MAX_STREAMS_PER_ADDRESS", "100")
)
# A process renews its slots' leases every third of this; a dead process's slots expire with it.
FACEDOWN_LIVE_SLOT_LEASE_SECONDS = float(os.environ.get("FACEDOWN_LIVE_SLOT_LEASE_SECONDS", "60"))
# Opens (streams and waiting long-polls, refused ones too) per user and per client address;
# over either: 429 throttled.
FACEDOWN_THROTTLE_LIVE_OPENS = os.environ.get("FACEDOWN_THROTTLE_LIVE_OPENS", "300/min")
FACEDOWN_THROTTLE_LIVE_OPENS_ADDRESS = os.environ.get(
    "FACEDOWN_THROTTLE_LIVE_OPENS_ADDRESS", "600/min"
)
# Database runs at once per ASGI process for the live paths (woken long-polls, stream reads).
FACEDOWN_LIVE_DB_CONCURRENCY = int(os.environ.get("FACEDOWN_LIVE_DB_CONCURRENCY", "8"))
