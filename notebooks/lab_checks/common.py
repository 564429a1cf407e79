"""What every lab's checks share: one verdict format, and tolerant number comparison."""

from __future__ import annotations

import math
from typing import Any


def verdict(answer: Any, expected: Any, *, rel: float = 0.02, hint: str = "") -> bool:
    """Prints whether `answer` matches `expected` and returns it. Numbers match within
    `rel` (relative); strings ignoring case and surrounding space; lists and tuples item
    by item. An answer left as None is "not answered yet", not wrong."""
    if answer is None:
        print("... not answered yet: replace None with your answer and run the cell again")
        return False
    if _matches(answer, expected, rel):
        print("correct")
        return True
    print("not quite" + (f": {hint}" if hint else ""))
    return False


def _matches(answer: Any, expected: Any, rel: float) -> bool:
    if isinstance(expected, bool) or isinstance(answer, bool):
        return answer is expected or answer == expected
    if isinstance(expected, (int, float)) and isinstance(answer, (int, float)):
        if math.isnan(expected) or math.isnan(answer):
            return False
        return math.isclose(answer, expected, rel_tol=rel, abs_tol=1e-12)
    if isinstance(expected, str) and isinstance(answer, str):
        return answer.strip().lower() == expected.strip().lower()
    if isinstance(expected, (list, tuple)) and isinstance(answer, (list, tuple)):
        return len(answer) == len(expected) and all(_matches(a, e, rel) for a, e in zip(answer, expected))
    return answer == expected
