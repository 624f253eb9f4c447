"""Watching a running Facedown: health probes, Prometheus metrics, request ids on every log
line and error reports (docs/observability.md). Reads the games app; nothing reads it."""
