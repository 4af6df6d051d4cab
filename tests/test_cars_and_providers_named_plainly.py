"""A car and a Texas provider named the way people name them: "i drive a volt" (the Volt had to be
called a Chevy), "reliant is my provider, centerpoint delivers" (the wires company said after the
provider had left both unsaved)."""

from __future__ import annotations

import pytest

from advisor.understanding.reader import understand


@pytest.mark.parametrize(
    "text", ["i drive a volt", "our 2017 volt needs charging by 7am", "the volt is at 20%, need it full by 6"]
)
def test_a_volt_named_alone_is_the_chevrolet(text: str) -> None:
    assert ("equipment.ev_model", "Chevrolet Volt") in [(f.field, f.value) for f in understand(text).facts]


@pytest.mark.parametrize(
    "text",
    ["whats a volt and an amp", "is a volt the same as a watt", "i have a 240 volt outlet in the garage"],
)
def test_a_volt_the_unit_is_no_car(text: str) -> None:
    reading = understand(text)
    assert not reading.facts and reading.params.vehicle is None


@pytest.mark.parametrize(
    ("text", "provider"),
    [
        ("houston 77005, reliant is my provider, centerpoint delivers", "Reliant Energy"),
        ("oncor delivers to us but TXU is who we pay", "TXU Energy"),
        ("centerpoint is just the wires, reliant is our provider", "Reliant Energy"),
        ("dallas, txu energy. oncor is the delivery company", "TXU Energy"),
    ],
)
def test_the_provider_is_saved_whichever_side_the_wires_company_is_named(text: str, provider: str) -> None:
    saved = {f.field: f.value for f in understand(text).facts}
    assert saved["location.utility_provider"] == provider
