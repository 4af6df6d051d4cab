"""Where a passage applies, and whether it applies to the person asking.

Documents declare `applies_to` ("US", a state "TX", or a state and utility "CA:PG&E"). California's
Solar Billing Plan is no answer for a Georgia Power customer asking whether solar pays; with the
user's place unknown, national passages come first and a state's passage is said as that state's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Where:
    """The states and utilities a question is for (the user's home, or a place the question names).
    Callers give a utility's state with it; both empty means unknown."""

    states: frozenset[str] = frozenset()
    utilities: frozenset[str] = frozenset()

    @property
    def known(self) -> bool:
        return bool(self.states)


NOWHERE = Where()


def parts(applies_to: str) -> tuple[str | None, str | None]:
    """("CA", "PG&E") for "CA:PG&E", ("TX", None) for "TX", (None, None) for "US"."""
    if applies_to == "US" or not applies_to:
        return None, None
    state, _, utility = applies_to.partition(":")
    return state, (utility or None)


def fits(applies_to: str, where: Where) -> bool | None:
    """True: it applies to them; False: another place's, never their answer; None: a state's
    passage for someone whose place is unknown (usable, said as that state's)."""
    state, utility = parts(applies_to)
    if state is None:
        return True
    if not where.known:
        return None
    if state not in where.states:
        return False
    return not (utility and where.utilities and utility not in where.utilities)
