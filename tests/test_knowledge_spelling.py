"""Typing slips in a knowledge question are put right against the documents' own words."""

from __future__ import annotations

import pytest

from knowledge.spelling import corrected, one_slip


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("whats a good humidty level inside in the winter", "humidity"),
        ("what temp should i set the thermastat at night", "thermostat"),
        ("is my dehumidifer costing a lot", "dehumidifier"),
        ("how do i progam my ecobee", "program"),
    ],
)
def test_a_slip_in_a_word_of_the_documents_is_put_right(typed: str, meant: str) -> None:
    assert meant in corrected(typed).split()


@pytest.mark.parametrize(
    "query",
    [
        "bettendorf iowa heat pump rebates",
        "is a span smart panel worth it",
        "lost the remote for my hunter fan",
    ],
)
def test_names_and_words_already_right_stay_as_typed(query: str) -> None:
    assert corrected(query) == query


def test_one_slip_is_one_letter_or_two_neighbours_swapped() -> None:
    assert one_slip("humidty", "humidity") and one_slip("thermastat", "thermostat")
    assert one_slip("hosue", "house") and not one_slip("thrmastat", "thermostat")
