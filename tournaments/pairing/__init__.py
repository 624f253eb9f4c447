"""Pairing and standings for tournaments, in plain Python: no database, no Django.

Players are ids; a finished match is a ``Played`` with its seats' ranking as games records it.
The Django app (tournaments/services/) reads the rows, calls these functions and writes the
rounds they return. Every function is deterministic for the same input.
"""
