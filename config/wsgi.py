import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_wsgi_application()

from config.fast_moves import FastMoves  # noqa: E402  (Django is set up above)

# A plain move is answered through the same doors without the resolver, middleware chain and
# DRF's dispatch; every other request is Django's (config/fast_moves.py).
application = FastMoves(django_application)
