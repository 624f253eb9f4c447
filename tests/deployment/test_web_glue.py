"""``config.web.Served``, the WSGI middleware between granian's own glue and Django: a Django
response that holds its body goes out in one piece, after its ``close()`` (Django's
``request_finished``); a streaming one is handed on, for the server to close after the last
chunk; the process's variables are taken out of a request's ``environ``, the request's own keys
stay. The whole server: tests/deployment/test_web_server.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.signals import request_finished
from django.http import HttpResponse, StreamingHttpResponse

from config.web import Served


@contextmanager
def _finished() -> Iterator[list[bool]]:
    seen: list[bool] = []

    def record(**kwargs: Any) -> None:
        seen.append(True)

    request_finished.connect(record, weak=False)
    try:
        yield seen
    finally:
        request_finished.disconnect(record)


def _serve(response: Any, environ: dict[str, Any] | None = None) -> tuple[Any, list[Any]]:
    started: list[Any] = []
    given: list[dict[str, Any]] = []

    def application(environ: dict[str, Any], start_response: Any) -> Any:
        given.append(dict(environ))
        start_response(f"{response.status_code} OK", list(response.items()))
        return response

    served = Served(application, {"DATABASE_URL": "postgres://secret", "HTTP_PROXY": "x"}, None)
    body = served(
        {"REQUEST_METHOD": "GET", "PATH_INFO": "/", **(environ or {})},
        lambda status, headers, exc_info=None: started.append((status, headers)),
    )
    return body, [*started, *given]


def test_a_response_with_its_body_is_sent_in_one_piece_after_close() -> None:
    with _finished() as finished:
        response = HttpResponse(b'{"ok":1}', status=202, content_type="application/json")
        body, _ = _serve(response)
    assert body == [b'{"ok":1}']
    assert finished == [True]


def test_a_streaming_response_is_handed_on_and_closed_by_the_server() -> None:
    with _finished() as finished:
        response = StreamingHttpResponse(iter([b"a", b"b"]))
        body, _ = _serve(response)
        assert finished == []
        assert b"".join(body) == b"ab"
        body.close()
    assert finished == [True]


def test_the_process_variables_leave_the_environ_and_the_requests_own_keys_stay() -> None:
    environ = {"DATABASE_URL": "postgres://secret", "HTTP_PROXY": "y", "HTTP_X_CLIENT": "yes"}
    _, (_, given) = _serve(HttpResponse(b""), environ)
    assert "DATABASE_URL" not in given
    assert given["HTTP_PROXY"] == "y"  # the request's own Proxy header, not the process's
    assert given["HTTP_X_CLIENT"] == "yes"
