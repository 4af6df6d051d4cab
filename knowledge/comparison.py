"""The two things a question weighs against each other ("whats the difference between TOU and
tiered", "induction vs radiant glass top", "tankless or a heat pump water heater"): an answer from
one section explains only one of them, so the other side's section of the same document is
given beside it (both cited)."""

from __future__ import annotations

import re

_SIDE = r"[a-z0-9][\w/&' -]{1,40}?"
_COMPARED = (
    # "whats the difference between TOU and tiered", "difference b/w a hybrid and a tankless"
    re.compile(
        rf"\bdifference\s+(?:between|b/w|btwn)\s+(?P<a>{_SIDE})\s+(?:and|&|vs\.?|versus)\s+(?P<b>{_SIDE})(?=\W*$|[?,.;])",
        re.I,
    ),
    # "induction vs radiant glass top", "tou versus tiered rates"
    re.compile(
        rf"(?:^|[,.;:?!]\s*|\b(?:is|are|whats|what's|which)\s+)(?P<a>{_SIDE})\s+(?:vs\.?|versus|compared\s+(?:to|with))\s+(?P<b>{_SIDE})(?=\W*$|[?,.;])",
        re.I,
    ),
)
# words of the question frame, not of either side
_FRAME = re.compile(r"^(?:the|a|an|my|our|whats|what's|what|is|are|which|one|having)\s+", re.I)


def compared_sides(question: str) -> tuple[str, str] | None:
    """The two sides weighed, as said, or None when the question weighs nothing."""
    for pattern in _COMPARED:
        found = pattern.search(question.strip())
        if found is not None:
            a, b = (
                _FRAME.sub("", side.strip(" ?.,")).strip() for side in (found.group("a"), found.group("b"))
            )
            if a and b and a.lower() != b.lower():
                return a, b
    return None
