"""Offline answers quote a knowledge passage without changing what it says."""

from __future__ import annotations

from knowledge.excerpts import passage_excerpt

EV_TOU_5 = """EV-TOU-5 has three price levels:

- **On-peak (most expensive)**: 4-9 p.m. every day.
- **Super off-peak (cheapest)**: midnight to 6 a.m. every day. On weekends and holidays it runs from midnight to 2 p.m.
- **Off-peak**: all remaining hours.

SDG&E's summer season runs June 1 through October 31."""


def test_a_list_is_quoted_whole_and_not_cut_at_a_m() -> None:
    """A user test saw '... three price levels: On-peak 4-9 p.m. ... Super off-peak: midnight to 6 a.m. [1]':
    cut at 'a.m.', two of three levels, and the weekend hours that answer the question lost."""
    excerpt = passage_excerpt(EV_TOU_5)
    assert "midnight to 2 p.m." in excerpt and "**Off-peak**: all remaining hours." in excerpt
    assert excerpt.count("\n- ") == 3


def test_a_long_paragraph_is_cut_at_a_sentence_end_not_an_abbreviation() -> None:
    text = ("Peak is 4-9 p.m. every day and off-peak is the rest. " * 30).strip()
    excerpt = passage_excerpt(text, limit=120)
    assert excerpt.endswith("the rest.") and "p.m. every day" in excerpt and len(excerpt) <= 120
