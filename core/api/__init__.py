"""The adapters' kit: what every API module reads a request and declares its answers with.

- ``core.api.input.validated``: a request body through its serializer, or a 400 problem;
- ``core.api.schema``: ``PROBLEM``, ``IDEMPOTENCY_HEADER``, ``IF_NONE_MATCH`` for the schema;
- ``core.api.throttles.SIGNED_IN_THROTTLES``: the throttles of a view only a user may call;
- ``core.api.answers``: the one view for accept/decline/withdraw of proposals, seat offers
  and challenges.

The requester (``accounts.requester.requester``) lives with the user model: ``core`` stands
below ``accounts``.
"""
