# The Facedown image: web (granian, config/web.py), Celery worker and beat, one-off migrations
# (docker-compose.yml; docs/deployment.md). Runs as an unprivileged user.
# 3.11: every benchmark ran on it and newer versions measured no faster (docs/deployment.md,
# "Which Python"); Facedown itself runs on 3.11 to 3.14.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    FACEDOWN_VAR_DIR=/app/var \
    DJANGO_STATIC_ROOT=/app/staticfiles \
    WEB_BIND=0.0.0.0:8000

WORKDIR /app
# A fixed uid, so mounted secret files can be made readable to it (docs/deployment.md, "Keys").
RUN groupadd --system --gid 10001 facedown \
    && useradd --system --uid 10001 --gid facedown --home-dir /app --no-create-home facedown

COPY pyproject.toml ./
COPY config ./config
COPY core ./core
COPY accounts ./accounts
COPY cardgames ./cardgames
COPY games ./games
COPY notify ./notify
COPY observability ./observability
COPY social ./social
COPY tournaments ./tournaments
COPY ladder ./ladder
COPY moderation ./moderation
COPY console ./console
COPY live ./live
COPY web ./web
COPY manage.py ./
# The translations (docs/languages.md): settings.LOCALE_PATHS is /app/locale.
COPY locale ./locale
# The production install: the project and its pinned dependencies, no development extras
# (tests/deployment/test_production_install.py runs the same install and every service on it).
RUN pip install --no-cache-dir --root-user-action=ignore --disable-pip-version-check . \
    # Static files gathered and compressed once, at build; WhiteNoise serves them. No database
    # or secret is needed for this step.
    && python manage.py collectstatic --noinput -v 0 \
    && mkdir -p /app/var \
    && chown facedown:facedown /app/var

USER facedown
EXPOSE 8000
# Process alive and answering (GET /healthz), with Python's urllib: no curl in the image.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "config.healthcheck"]
CMD ["python", "-m", "config.web"]
