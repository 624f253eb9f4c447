"""Print a new VAPID key pair for Web Push, as the two settings every machine must share."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from notify.push import vapid_keys_new


class Command(BaseCommand):
    help = "Generate a VAPID key pair (FACEDOWN_VAPID_PRIVATE_KEY / FACEDOWN_VAPID_PUBLIC_KEY)."

    def handle(self, *args: Any, **options: Any) -> None:
        private, public = vapid_keys_new()
        self.stdout.write(f"FACEDOWN_VAPID_PRIVATE_KEY={private}\n")
        self.stdout.write(f"FACEDOWN_VAPID_PUBLIC_KEY={public}\n")
