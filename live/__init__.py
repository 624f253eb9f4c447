"""Live updates: the bus that carries committed match events (already redacted) and user
notifications to the streams and the long-poll served by the ASGI server (docs/live.md)."""
