"""A second car named inside a charging request ("how much to charge my wife's bolt" with a Model 3
saved) is the car for that answer and leaves the saved car alone: the profile keeps one EV, and
replacing it because another car was asked about put a wrong car under every later plan. A car
they say changed ("we traded the tesla for a bolt") still replaces it."""

from __future__ import annotations

import pytest

from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import understand

MODEL_3 = ReadingContext(known_fields={"equipment.ev_model": "Tesla Model 3"})


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("how much to charge my wifes bolt from 20 to 80 tonight", "Chevrolet Bolt EV"),
        ("my husband's leaf needs 40 miles by 7am", "Nissan Leaf"),
        ("charge the ioniq 5 to 80 by 7", "Hyundai Ioniq 5"),
        ("how much to charge my brothers bolt from 20 to 80 tonight", "Chevrolet Bolt EV"),
    ],
)
def test_a_second_car_in_a_request_is_planned_and_not_saved(text: str, car: str) -> None:
    reading = understand(text, MODEL_3)
    assert reading.params.vehicle == car
    assert "equipment.ev_model" not in {f.field for f in reading.facts}


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("we traded the tesla for a bolt, how long to charge it", "Chevrolet Bolt EV"),
        ("we have a bolt now, need 80% by 7", "Chevrolet Bolt EV"),
        ("sorry i meant model y, charge it to 90", "Tesla Model Y"),
    ],
)
def test_a_car_they_say_changed_replaces_the_saved_one(text: str, car: str) -> None:
    saved = {f.field: f.value for f in understand(text, MODEL_3).facts}
    assert saved.get("equipment.ev_model") == car


def test_with_no_car_saved_the_car_they_charge_is_kept() -> None:
    saved = {f.field: f.value for f in understand("my husband's leaf needs 40 miles by 7am").facts}
    assert saved["equipment.ev_model"] == "Nissan Leaf"


def test_the_plan_is_for_the_car_asked_and_the_saved_car_stays(data_dir) -> None:
    from tests.advisor_helpers import make_runtime

    runtime = make_runtime(data_dir)
    service = runtime.service
    service.handle_turn("U-2C", "t", "hi, 80202 denver, xcel. we have a model 3")
    reply = service.handle_turn("U-2C", "t", "how much to charge my wifes bolt from 20 to 80 tonight")
    assert "Chevrolet Bolt EV" in reply.text and "Updated" not in reply.text
    assert service.profiles.get("U-2C").equipment.ev_model == "Tesla Model 3"
