"""The ASGI application (uvicorn): the whole site, plus what only an event loop serves well,
the live streams (live/views.py) and the events long-poll (live/longpoll.py). docs/live.md."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Under ASGI each request runs its synchronous code on a thread of its own: a persistent
# database connection would be left behind on a finished thread, one per request, until
# PostgreSQL has none left. Django's advice: none, whatever the shared environment says.
os.environ["DB_CONN_MAX_AGE"] = "0"

from django.core.asgi import get_asgi_application

django_application = get_asgi_application()

from config.startup import refuse_to_start_wrong  # noqa: E402

# As gunicorn and Celery do (config/startup.py): a wrong configuration stops the process here.
refuse_to_start_wrong("the ASGI server")

from config.static_files import StaticFiles  # noqa: E402
from live.asgi import Streams  # noqa: E402
from live.longpoll import LongPoll  # noqa: E402

application = Streams(LongPoll(StaticFiles(django_application)))  # type: ignore[arg-type]
