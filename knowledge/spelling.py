"""Typing slips in a knowledge question, put right against the documents' own words.

"whats a good humidty level inside in the winter" found nothing on humidity: neither BM25 nor the
small sentence encoder knows "humidty", so the search ranked EV cold-weather passages first. A word
of five letters or more that is neither a word the encoder's vocabulary holds nor a word of the
documents is read as the documents' word one slip away (a letter inserted, dropped or changed, or
two neighbours swapped) — only when exactly one such word exists, so a rare name or a word we do
not cover stays as typed. Written here rather than with a spelling library: the vocabulary that
matters is the corpus's own, and one edit against it is a few lines.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from knowledge.encoder import common_words
from knowledge.ingest import DOCS_DIR

_WORD = re.compile(r"[A-Za-z]+")
MIN_LENGTH = 6  # shorter words have too many neighbours one letter away ("dials" / "deals")
# an ending that makes another word of a known one: "swears", "renting", "exchanger" are no slips
# (and a contraction typed without its apostrophe: "theyre", "doesnt")
_ENDINGS = ("s", "es", "ed", "d", "ing", "er", "ers", "ly", "re", "nt", "ll", "ve")


@lru_cache(maxsize=4)
def corpus_words(folder: Path = DOCS_DIR) -> frozenset[str]:
    """Every word of the documents, lowercased."""
    return frozenset(
        word.lower() for path in sorted(folder.glob("*.md")) for word in _WORD.findall(path.read_text())
    )


def one_slip(typed: str, word: str) -> bool:
    """One letter inserted, dropped or changed, or two neighbouring letters swapped."""
    if typed == word or abs(len(typed) - len(word)) > 1:
        return False
    if len(typed) == len(word):
        diffs = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        return len(diffs) == 1 or (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and typed[diffs[0]] == word[diffs[1]]
            and typed[diffs[1]] == word[diffs[0]]
        )
    short, long = (typed, word) if len(typed) < len(word) else (word, typed)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _slip_inside(typed: str, word: str) -> bool:
    """A slip away from both ends: the first two letters agree ("shingle" is no slip of
    "single") and the last letter is not what differs, unless two letters swapped there
    ("somethign"); a last letter added or changed makes other words ("radiator" / "radiators")."""
    if typed[:2] != word[:2] or not one_slip(typed, word):
        return False
    if len(typed) == len(word):
        return typed[-1] == word[-1] or typed[-2:] == word[-2:][::-1]
    return typed[:-1] != word and word[:-1] != typed


def _another_form(typed: str, known: frozenset[str]) -> bool:
    """A known word with a common ending ("swears", "renting", "dries" -> "dry" is not tried)."""
    return any(
        typed.endswith(ending) and typed[: -len(ending)] in known
        for ending in _ENDINGS
        if len(typed) > len(ending) + 2
    )


def corrected(query: str, keep: frozenset[str] = frozenset(), folder: Path = DOCS_DIR) -> str:
    """The query with each slip put right (see the module's docstring); the rest as typed. `keep`:
    words that are names to the caller ("entergy", "evergy": utilities, not slips of "energy")."""
    known = corpus_words(folder)
    english = common_words()

    def fix(match: re.Match[str]) -> str:
        typed = match.group(0)
        lowered = typed.lower()
        if (
            len(lowered) < MIN_LENGTH
            or lowered in known
            or lowered in english
            or lowered in keep
            or _another_form(lowered, english | known)
        ):
            return typed
        near = [word for word in known if abs(len(word) - len(lowered)) <= 1 and _slip_inside(lowered, word)]
        return near[0] if len(near) == 1 else typed

    return _WORD.sub(fix, query)
