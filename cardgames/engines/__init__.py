"""Pure game rules behind one protocol (``cardgames.engines.protocol``), one module per game.

This package imports nothing outside itself; ``games.catalog`` finds an engine by slug."""
