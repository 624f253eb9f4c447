"""Notifications: who must hear about a change to a match, and the channels that tell them.

``kinds`` names the notifications and their typed record; ``generate`` computes them from a
committed unit of work (no query inside its lock); ``deadlines`` finds steps about to time out;
``dispatch`` hands each batch to every registered channel (e-mail, webhooks, Web Push, the
user's live stream), so a failing channel never fails a move nor another channel.
"""
