"""Settings for the test suite: the real PostgreSQL and Redis on this machine unless told."""

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/facedown")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
# The production checks (core/checks.py) pass: the tests run the production mode.
os.environ.setdefault("DJANGO_SECRET_KEY", "facedown-test-suite-secret-key-not-for-any-deployment")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "*")


def _worker_number() -> int | None:
    """pytest-xdist's worker of this process (``gw1`` is 1), unless this process's Redis URLs are
    already a worker's: a server a test starts inherits them (and the worker's variable)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or os.environ.get("FACEDOWN_TEST_REDIS_WORKER") == worker:
        return None
    return int(worker.removeprefix("gw"))


def _worker_redis(url: str, number: int) -> str:
    """The Redis database of worker ``number``: the given one less the number (15, 14, ...),
    or more when that would go below 0, so that two workers never share one."""
    base, _, database = url.rpartition("/")
    own = int(database or 0)
    own = own - number if own >= number else own + number
    return f"{base}/{own}"


# Two workers (scripts/test runs pytest -n 2) share PostgreSQL and Redis. pytest-django gives
# each its own test database (test_facedown_gw0, ...); here each gets its own Redis database
# (the cache, the throttles, the live bus and the Celery broker) and its own Celery queue.
_number = _worker_number()
if _number is not None:
    for _name in ("REDIS_URL", "CELERY_BROKER_URL"):
        if os.environ.get(_name, "").strip():
            os.environ[_name] = _worker_redis(os.environ[_name].strip(), _number)
    os.environ["FACEDOWN_TEST_REDIS_WORKER"] = os.environ["PYTEST_XDIST_WORKER"]

from config.settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {  # noqa: F405
    scope: "100000/min"
    for scope in (
        *("anon", "user", "login", "register", "match_create", "moves", "reads", "chat"),
        *("account", "notify", "revoke", "challenges", "bulk_pairing", "reports"),
    )
}
# Reset mail stays in django.core.mail.outbox.
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Tests that count round trips or revoke tokens must see every lookup.
FACEDOWN_TOKEN_CACHE_SECONDS = 0
# Nor a token's last use written on some request once a minute (tests/accounts sets it).
FACEDOWN_TOKEN_LAST_USED_SECONDS = 10**9
# A fixed receipt-signing key, so no test writes a key file into the repository's var/.
FACEDOWN_SIGNING_KEY = "4e1c5b0f" * 8
FACEDOWN_SIGNING_OLD_PUBLIC_KEYS = []
# The browser tests talk plain http to their live server.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = False

# Live-deadline tests use one-second steps; the API's minimum stays 10 s everywhere else.
FACEDOWN_MIN_STEP_SECONDS = 1

# Every emitted event is checked against the event catalogue.
FACEDOWN_CHECK_EVENTS = True

# Failed logins are counted in the shared Redis across runs; the lockout tests lower this.
FACEDOWN_LOGIN_LOCKOUT_FAILURES = 1000
# Verification mails are counted per address in the shared Redis across runs; the limit's test
# lowers this and uses an address of its own.
FACEDOWN_EMAIL_VERIFY_PER_ADDRESS = 1000
# Many tests invite the same players again and again; the limits' tests
# (tests/api/test_attention_limits.py) lower these.
FACEDOWN_INVITATIONS_PER_HOUR = 1000
FACEDOWN_PROPOSALS_PER_HOUR = 1000

# Each worker's Celery queue is its own as well (the default queue "celery" otherwise).
if os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw"):
    CELERY_TASK_DEFAULT_QUEUE = f"facedown-test-{os.environ['PYTEST_XDIST_WORKER']}"
