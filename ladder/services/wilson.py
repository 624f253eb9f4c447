"""The 95% Wilson score interval of a pair's score (wins count 1, draws 1/2).

The short formula rather than a library: scipy's ``binomtest(...).proportion_ci`` wants a
whole number of successes, and a score with draws is not one. For ``n`` matches with score
share ``p``, ``z = 1.96``: centre ``(p + z²/2n) / (1 + z²/n)``, half-width
``z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)``. Unlike ``p ± z·sqrt(p(1-p)/n)`` it stays inside
[0, 1] and is not empty at 0/n or n/n.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 1.0
    p = score / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
