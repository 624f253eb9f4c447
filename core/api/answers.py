"""One view for every answer to an offer someone made: accept, decline and withdraw a
proposal or a seat offer, accept, decline and cancel a challenge.

A family (``AnswerFamily``) says how an answer is made and shown and which throttles, token
scope and wrapper its views take; ``answer_api`` gives one view class per URL, which differs
from its siblings only in its verb, its body and its schema.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from core.api.input import validated

Handler = Callable[..., Response]
#: ``(request, verb, validated body, the URL's ids) -> the answer``
Answer = Callable[[Request, str, dict[str, Any], dict[str, str]], Response]


@dataclass(frozen=True)
class AnswerFamily:
    name: str  # in the view classes' names: "Proposal" -> ProposalAcceptApi
    answer: Answer
    throttle_scope: str
    token_scope: str
    tags: Sequence[str]
    throttle_classes: Sequence[type[BaseThrottle]] | None = None  # None: DRF's defaults
    wrap: Callable[[Handler], Handler] | None = None  # e.g. the Idempotency-Key handling
    parameters: Sequence[OpenApiParameter] = field(default_factory=tuple)


class AnswerApi(APIView):
    family: ClassVar[AnswerFamily]
    verb: ClassVar[str]
    body: ClassVar[type[BaseSerializer] | None] = None

    def answered(self, request: Request, ids: dict[str, str]) -> Response:
        data = validated(self.body, request) if self.body is not None else {}
        return self.family.answer(request, self.verb, data, ids)


def answer_api(
    family: AnswerFamily,
    verb: str,
    *,
    responses: dict[int, Any],
    description: str,
    body: type[BaseSerializer] | None = None,
) -> type[AnswerApi]:
    """The view answering ``verb`` in ``family``, with its schema."""

    def post(view: AnswerApi, request: Request, **ids: str) -> Response:
        return view.answered(request, ids)

    handler = family.wrap(post) if family.wrap is not None else post
    attributes: dict[str, Any] = {
        "family": family,
        "verb": verb,
        "body": body,
        "throttle_scope": family.throttle_scope,
        "token_scope": family.token_scope,
        "post": extend_schema(
            request=body,
            parameters=list(family.parameters),
            responses=responses,
            tags=list(family.tags),
            description=description,
        )(handler),
        "__module__": family.answer.__module__,
    }
    if family.throttle_classes is not None:
        attributes["throttle_classes"] = list(family.throttle_classes)
    return type(f"{family.name}{verb.capitalize()}Api", (AnswerApi,), attributes)
