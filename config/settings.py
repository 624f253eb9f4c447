"""Settings, all from environment variables.

The embedded default (no variables set) runs on a SQLite file under ``var/`` with no Redis;
``DATABASE_URL`` and ``REDIS_URL`` switch to the full stack.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("FACEDOWN_VAR_DIR", BASE_DIR / "var"))


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = _env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "facedown-insecure-development-key")
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "*").split(",") if h]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "core",
    "accounts",
    "games",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "core.input.BodyLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
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
            ]
        },
    }
]

_default_sqlite = f"sqlite:///{VAR_DIR / 'facedown.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", _default_sqlite),
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        # A health check costs a round trip per request; off unless asked for.
        conn_health_checks=_env_bool("DB_CONN_HEALTH_CHECKS", False),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters bound by the server, not quoted into the SQL text in Python: cheaper on every
    # query, and psycopg prepares the statements a connection runs often.
    DATABASES["default"]["OPTIONS"] = {
        "server_side_binding": _env_bool("DB_SERVER_SIDE_BINDING", True)
    }
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
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

REST_FRAMEWORK = {
    # Token first, so a missing or bad token answers 401 with WWW-Authenticate: Token.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.CachedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.input.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.problems.problem_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "core.throttling.AnonRateThrottle",
        "core.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("FACEDOWN_THROTTLE_ANON", "120/min"),
        "user": os.environ.get("FACEDOWN_THROTTLE_USER", "6000/min"),
        "register": os.environ.get("FACEDOWN_THROTTLE_REGISTER", "30/hour"),
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
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.problem_schema",
        "games.api.schema.nullable_refs",
    ],
}

# Request limits (docs/api.md, "Conventions"): a larger body answers 413 payload_too_large,
# JSON nested deeper answers 400 parse_error.
FACEDOWN_MAX_BODY_BYTES = int(os.environ.get("FACEDOWN_MAX_BODY_BYTES", str(64 * 1024)))
FACEDOWN_MAX_JSON_DEPTH = int(os.environ.get("FACEDOWN_MAX_JSON_DEPTH", "32"))
# Django's own limit on anything else that reads the body (forms, the operator console).
DATA_UPLOAD_MAX_MEMORY_SIZE = FACEDOWN_MAX_BODY_BYTES

# Seconds a token lookup is cached per process; a reset token stops working within this time.
FACEDOWN_TOKEN_CACHE_SECONDS = int(os.environ.get("FACEDOWN_TOKEN_CACHE_SECONDS", "30"))
# How long Idempotency-Key answers are kept.
FACEDOWN_IDEMPOTENCY_TTL_SECONDS = 24 * 3600

# A key still "in progress" after this long belongs to a request that died: it may be reused.
FACEDOWN_IDEMPOTENCY_ABANDONED_SECONDS = 120

# Ed25519 key signing move receipts (docs/fairness.md, "Keys"): 64 hex characters of the raw
# private key; when empty, read from FACEDOWN_SIGNING_KEY_FILE (generated there, mode 0600, on
# first use). Every web process and worker must use the same key.
FACEDOWN_SIGNING_KEY = os.environ.get("FACEDOWN_SIGNING_KEY", "")
FACEDOWN_SIGNING_KEY_FILE = Path(
    os.environ.get("FACEDOWN_SIGNING_KEY_FILE", VAR_DIR / "signing-key")
)
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
# Check every emitted event against the catalogue's payload schema (games/events.py). On in
# tests; off in production, where the types already checked the code that emits.
FACEDOWN_CHECK_EVENTS = os.environ.get("FACEDOWN_CHECK_EVENTS", "0") == "1"
# How often the sweep looks for overdue steps and bot seats whose task was lost.
FACEDOWN_SWEEP_SECONDS = float(os.environ.get("FACEDOWN_SWEEP_SECONDS", "5"))
# A bot seat still waiting this long after its step opened is nudged by the sweep.
FACEDOWN_BOT_STALL_SECONDS = 10

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# ETA tasks (live deadlines) fire within this many seconds of their time.
CELERY_WORKER_TIMER_PRECISION = 0.1
# Unacknowledged tasks come back after this long; ETA tasks are never scheduled further ahead.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_BEAT_SCHEDULE = {
    "overdue-sweep": {"task": "games.tasks.overdue_sweep_task", "schedule": FACEDOWN_SWEEP_SECONDS},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
