"""Pairing, scheduling and standings of tournaments: pure Python, no Django, no database.

The tournaments app feeds these functions plain values (entrants, finished matches, byes) and
stores what they return; everything here is deterministic for the same input.
"""
