"""Utilities and towns outside the hand-kept tables (found after the fifteenth fresh set: co-ops,
city utilities and towns named beside them were dropped, so the next turn asked again). Each
rule is checked on phrasings beside the ones that failed, and on look-alikes it must not take."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.energy.utilities import utility_by_shape
from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand
from bench.conversations import same_fact


def _facts(text: str, **context: Any) -> dict[str, Any]:
    return {fact.field: fact.value for fact in understand(text, ReadingContext(**context)).facts}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "Hello. I'm with Singing River Electric. When should I run the dishwasher",
            "Singing River Electric",
        ),
        ("we're on sac osage electric, bill says 12.5 cents", "Sac Osage Electric"),
        ("our power comes from Custer Public Power District", "Custer Public Power District"),
        ("we're a co-op, jackson emc", "Jackson EMC"),
        ("Delaware Electric Co-op member here", "Delaware Electric Co-op"),
        ("eugene, EWEB customer. one ev", "EWEB"),
        ("we're with tri-county remc out here", "Tri-County REMC"),
        ("my co-op is connexus energy", "Connexus Energy"),
    ],
)
def test_a_utility_named_the_way_utilities_are_is_kept_as_said(text: str, name: str) -> None:
    assert utility_by_shape(text) is not None and utility_by_shape(text)[0] == name


@pytest.mark.parametrize(
    "text",
    [
        "do panels still make power when its cloudy",
        "it's about energy so technically on brand",
        "heat is gas, stove is gas, everything else electric",
        "kona electric, need 80% by 7am",  # a car, not a utility
        "we want more solar energy on the roof",
        "thinking about an EV from BMW",  # an acronym that is no utility
        "is green energy worth paying extra for",
    ],
)
def test_ordinary_words_before_a_utility_word_are_no_utility(text: str) -> None:
    assert utility_by_shape(text) is None


def test_the_utility_and_the_town_beside_it_are_saved_together() -> None:
    facts = _facts(
        "Hello. I'm with Singing River Electric in Ocean Springs. When would be best to run my dishwasher today?"
    )
    assert facts["location.utility_provider"] == "Singing River Electric"
    assert facts["location.city"] == "Ocean Springs"


def test_a_town_after_in_is_theirs_when_their_utility_serves_its_state() -> None:
    facts = _facts("retired couple in roanoke, appalachian power. just window units for cooling")
    assert facts["location.city"] == "Roanoke"
    assert facts["location.utility_provider"] == "Appalachian Power"


def test_a_message_that_opens_with_a_town_and_names_its_utility_places_them() -> None:
    facts = _facts("eugene, EWEB customer. one ev, a 2020 kona electric")
    assert facts["location.city"] == "Eugene"
    assert facts["location.utility_provider"] == "EWEB"
    assert facts["equipment.ev_model"] == "Hyundai Kona Electric"


def test_a_house_style_before_in_names_their_town() -> None:
    assert _facts("we heat w/ oil in an old colonial in scranton pa")["location.city"] == "Scranton"


@pytest.mark.parametrize(
    "text",
    [
        "fyi the cabin near ennis is on its own account with vigilante electric",
        "we also have a cabin up by grand lake, mountain parks electric, wood stove",
        "my mom's house in hattiesburg has a heat pump and she's on coast electric",
    ],
)
def test_a_second_home_or_someone_elses_utility_is_not_saved(text: str) -> None:
    assert "location.utility_provider" not in _facts(text)


def test_we_live_in_a_cabin_is_their_home() -> None:
    assert (
        _facts("we live in a cabin near ennis, vigilante electric")["location.utility_provider"]
        == "Vigilante Electric"
    )


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("houston, txu is the provider", "TXU Energy"),
        ("we're with reliant on a fixed 13.9 cent plan", "Reliant Energy"),
        ("renting in cleveland, gas heat, first energy", "FirstEnergy"),
    ],
)
def test_texas_retail_providers_and_firstenergy_are_in_the_table(text: str, name: str) -> None:
    assert _facts(text)["location.utility_provider"] == name


def test_reliant_as_an_ordinary_word_is_no_utility() -> None:
    assert "location.utility_provider" not in _facts("we're reliant on propane for heat")


@pytest.mark.parametrize(
    ("expected", "got", "same"),
    [
        ("Stearns Electric Association", "Stearns Electric", True),
        ("Delaware Electric Cooperative", "Delaware Electric Co-op", True),
        ("EWEB", "EWEB", True),
        ("Coast Electric", "Singing River Electric", False),
        ("Kootenai Electric Cooperative", "Kootenai Co-op", False),
    ],
)
def test_the_bench_takes_a_utilitys_shorter_name_as_the_same(expected: str, got: str, same: bool) -> None:
    assert same_fact("location.utility_provider", expected, got) is same
