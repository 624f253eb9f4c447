from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.signing import ALGORITHM, public_keys

_KEY = {
    "key_id": serializers.CharField(
        help_text="First 16 lowercase hex characters of SHA-256 of the raw public key."
    ),
    "algorithm": serializers.CharField(help_text="Always `ed25519`."),
    "public_key": serializers.CharField(
        help_text="The raw 32-byte Ed25519 public key, 64 lowercase hex characters."
    ),
}


class FairnessKeyApi(APIView):
    throttle_scope = "reads"
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses={
            200: inline_serializer(
                "FairnessKey",
                {
                    **_KEY,
                    "old_keys": inline_serializer(
                        "FairnessOldKey",
                        {"key_id": _KEY["key_id"], "public_key": _KEY["public_key"]},
                        many=True,
                    ),
                },
            )
        },
        tags=["fairness"],
        description=(
            "The Ed25519 key that signs move receipts (docs/fairness.md). `old_keys` lists "
            "retired keys whose receipts still verify."
        ),
    )
    def get(self, request: Request) -> Response:
        keys = list(public_keys().items())
        (key_id, public_key), retired = keys[0], keys[1:]
        return Response(
            {
                "key_id": key_id,
                "algorithm": ALGORITHM,
                "public_key": public_key,
                "old_keys": [{"key_id": k, "public_key": p} for k, p in retired],
            }
        )
