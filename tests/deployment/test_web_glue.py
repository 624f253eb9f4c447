"""``config.web.wsgi_callback``, the glue between granian and Django, called with a stand-in
for granian's protocol object: a Django response that holds its body goes out in one piece,
after its ``close()`` (Django's ``request_finished``); a streaming one through granian's
iterator, closed by granian after the last chunk."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, StreamingHttpResponse

import config.web as web


class Protocol:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.closed: list[bool] = []  # the response's close(), seen through its closers

    def response_bytes(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.sent.append(("bytes", (status, body)))

    def response_iter(self, status: int, headers: list[tuple[str, str]], rows: Any) -> None:
        self.sent.append(("iter", (status, rows)))


def _serve(response: Any) -> Protocol:
    protocol = Protocol()
    response._resource_closers.append(lambda: protocol.closed.append(True))

    def application(environ: dict[str, Any], start_response: Any) -> Any:
        start_response(f"{response.status_code} OK", list(response.items()))
        return response

    balance, web._balance = web._balance, None
    try:
        run = web.wsgi_callback(application, {})
        run(protocol, {"REQUEST_METHOD": "GET", "PATH_INFO": "/"})
    finally:
        web._balance = balance
    return protocol


def test_a_response_with_its_body_is_sent_in_one_piece_after_close() -> None:
    protocol = _serve(HttpResponse(b'{"ok":1}', status=202, content_type="application/json"))
    assert protocol.sent == [("bytes", (202, b'{"ok":1}'))]
    assert protocol.closed == [True]


def test_a_streaming_response_goes_through_the_iterator_and_is_closed_by_the_server() -> None:
    protocol = _serve(StreamingHttpResponse(iter([b"a", b"b"])))
    ((kind, (status, rows)),) = protocol.sent
    assert (kind, status) == ("iter", 200)
    assert protocol.closed == []
    assert b"".join(iter(rows.__next__, None)) == b"ab"  # ends at StopIteration
    rows.close()
    assert protocol.closed == [True]
