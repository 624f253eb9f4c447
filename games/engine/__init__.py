"""Pure game rules behind one protocol (``games.engine.protocol``), one module per game.

This package imports nothing outside itself; ``games.catalog`` finds an engine by slug."""
