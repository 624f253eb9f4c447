import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_wsgi_application()

from config.fast_moves import FastMoves  # noqa: E402  (Django is set up above)
from config.fast_polls import FastPolls  # noqa: E402

# A plain move and a plain poll are answered through the same doors without the resolver,
# middleware chain and DRF's dispatch; every other request is Django's (config/fast_moves.py,
# config/fast_polls.py).
application = FastPolls(FastMoves(django_application))
