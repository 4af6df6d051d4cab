"""A message's size, checked before anything reads it (spec 003): empty text is rejected, text
over 1000 words is cut to its first 1000 and flagged. Not its meaning: that is `understanding`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

MAX_WORDS = 1000


class ValidatedMessage(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    empty: bool
    truncated: bool
    word_count: int


def validate_message(text: str | None) -> ValidatedMessage:
    stripped = (text or "").strip()
    words = stripped.split()
    if not words:
        return ValidatedMessage(text="", empty=True, truncated=False, word_count=0)
    if len(words) > MAX_WORDS:
        return ValidatedMessage(
            text=" ".join(words[:MAX_WORDS]), empty=False, truncated=True, word_count=len(words)
        )
    return ValidatedMessage(text=stripped, empty=False, truncated=False, word_count=len(words))
