"""A time-of-use plan described in words is priced as described: most US utilities' plans are not
in the catalog, and the answers had said "with your plan's prices I can work from them" and then
used the state's average anyway (a homeowner-tester in Boise, Dallas and Chicago)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from advisor.energy.described_plan import DescribedPlan
from advisor.understanding.plan_described import described_plan
from tests.advisor_helpers import make_runtime
from tests.test_homeowner_findings import NOW, new_user


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "my rates are 11 cents off peak and 25 cents on peak, peak is 5pm to 9pm weekdays",
            "peak 17:00-21:00 on weekdays at 25¢/kWh, 11¢/kWh the other hours",
        ),
        (
            "On-Peak 3pm-8pm Mon-Fri $0.2809/kWh Off-Peak $0.1107/kWh -- thats off our nv energy bill",
            "peak 15:00-20:00 on weekdays at 28.1¢/kWh, 11.1¢/kWh the other hours",
        ),
        (
            "peak is 4-9 at 38 cents, off peak 22 cents",
            "peak 16:00-21:00 at 38¢/kWh, 22¢/kWh the other hours",
        ),
        (
            "3-7pm is peak, 24c on peak and 9c off peak every day",
            "peak 15:00-19:00 at 24¢/kWh, 9¢/kWh the other hours",
        ),
        # the bot's own example of how to say it (a homeowner-tester typed it back word for word)
        (
            "25 cents on peak 5-9pm weekdays, 11 off peak",
            "peak 17:00-21:00 on weekdays at 25¢/kWh, 11¢/kWh the other hours",
        ),
        # the cheap hours said instead of the peak's
        (
            "off peak is 7.3 cents from 11pm to 7am, on peak 18 cents",
            "off-peak 23:00-07:00 at 7.3¢/kWh, 18¢/kWh the other hours",
        ),
        (
            "i think i'm on the overnight advantage plan, 7.3 cents 11pm-7am and like 18 cents otherwise",
            "off-peak 23:00-07:00 at 7.3¢/kWh, 18¢/kWh the other hours",
        ),
        (
            "we pay 30 cents 4-9pm and 12 cents the rest of the time",
            "peak 16:00-21:00 at 30¢/kWh, 12¢/kWh the other hours",
        ),
        # day and night prices, and the day's hours (a second homeowner-tester in Columbus, OH)
        (
            "we pay 9 cents at night and 22 during the day, day is 7am to 11pm",
            "peak 07:00-23:00 at 22¢/kWh, 9¢/kWh the other hours",
        ),
    ],
)
def test_a_plan_described_with_both_prices_and_the_peak_hours_is_read(text: str, said: str) -> None:
    plan = described_plan(text)
    assert plan is not None and plan.said() == said


@pytest.mark.parametrize(
    "text",
    [
        "whens peak today",
        "is peak 4-9pm?",
        "we pay 14 cents",
        "my bill shows on-peak 0.47 off-peak 0.29 super off-peak 0.21",  # no hours: half a plan
        "peak is 5pm to 9pm",  # no prices
        "11 off peak and 25 on peak, peak 5-9",  # bare numbers beside "peak" may be hours
        "its cold at night and hot during the day, day is 7am to 11pm",  # no prices
        # a third period: two prices would misprice its hours
        "on-peak 0.47 off-peak 0.29 super off-peak 0.21, peak is 4-9pm",
    ],
)
def test_half_a_plan_is_not_a_plan(text: str) -> None:
    assert described_plan(text) is None


def test_the_described_plan_prices_its_window_and_leaves_weekends_off_peak() -> None:
    plan = DescribedPlan(
        window_start=17, window_end=21, window_usd_per_kwh=0.25, other_usd_per_kwh=0.11, weekdays_only=True
    )
    tariff = plan.tariff("Idaho Power", as_of=date(2026, 11, 27))
    weekday, weekend = tariff.weekday_schedule[0], tariff.weekend_schedule[0]
    assert [tariff.periods[i].usd_per_kwh for i in weekday[16:22]] == [0.11, 0.25, 0.25, 0.25, 0.25, 0.11]
    assert {tariff.periods[i].usd_per_kwh for i in weekend} == {0.11}
    overnight = DescribedPlan(
        window_start=21, window_end=6, window_kind="off_peak", window_usd_per_kwh=0.08, other_usd_per_kwh=0.19
    )
    prices = [
        overnight.tariff(None, as_of=date(2026, 11, 27)).periods[i].usd_per_kwh
        for i in overnight.tariff(None, as_of=date(2026, 11, 27)).weekday_schedule[0]
    ]
    assert prices[22] == prices[3] == 0.08 and prices[12] == 0.19


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    built = make_runtime(tmp_path_factory.mktemp("described"), clock=lambda: NOW)
    yield built
    built.close()


def test_the_answers_of_the_thread_are_priced_on_the_plan_they_described(runtime: Any) -> None:
    user = new_user(runtime)
    runtime.service.handle_turn(user, "plan", "boise 83702 idaho power")
    noted = runtime.service.handle_turn(
        user, "plan", "my rates are 11 cents off peak and 25 cents on peak, peak is 5pm to 9pm weekdays"
    )
    assert "Noted for this conversation: your plan's peak 17:00-21:00 on weekdays at 25¢/kWh" in noted.text
    assert "average" not in noted.text
    dryer = runtime.service.handle_turn(user, "plan", "run the dryer now or later?")
    assert "average" not in dryer.text and "I don't know your plan's hours" not in dryer.text
    prices = runtime.service.handle_turn(user, "plan", "whens peak tomorrow")
    assert "Peak 17:00-21:00 $0.25" in prices.text
    assert runtime.service.profiles.get(user).location.rate_schedule is None  # nothing invented saved


def test_tomorrows_one_price_is_tomorrows_not_nows(tmp_path: Path) -> None:
    """A weekday-peak plan asked about on a weekday afternoon for tomorrow, a Saturday: every hour
    tomorrow is off-peak, and the run is priced at that (it had been priced at now's peak price)."""
    from datetime import datetime, timezone

    saturday_eve = make_runtime(tmp_path, clock=lambda: datetime(2026, 11, 27, 20, 0, tzinfo=timezone.utc))
    try:
        user = new_user(saturday_eve)
        reply = saturday_eve.service.handle_turn(
            user,
            "pool",
            "dallas 75214, reliant. our plan is 9 cents off peak and 21 cents on peak, peak 2pm-8pm weekdays. "
            "whens cheapest to run the pool pump tmrw",
        )
    finally:
        saturday_eve.close()
    assert "every hour tomorrow costs the same ($0.09/kWh)" in reply.text


def test_a_free_nights_plan_is_free_at_night_and_one_price_the_rest() -> None:
    plan = described_plan(
        "dallas 75214, txu. my plan is free nights 9pm-6am and 19 cents a kwh the rest of the day"
    )
    assert plan is not None and plan.said() == "free 21:00-06:00, 19¢/kWh the other hours"
    tariff = plan.tariff("TXU Energy", as_of=date(2026, 11, 27))
    prices = [tariff.periods[i].usd_per_kwh for i in tariff.weekend_schedule[0]]
    assert prices[22] == prices[5] == 0.0 and prices[6] == prices[20] == 0.19
    assert {p.display for p in tariff.periods} == {"Free", "Standard"}
    assert described_plan("is free nights worth it") is None


def test_a_plan_described_after_an_answer_redoes_it_on_that_plan(data_dir: Path) -> None:
    runtime = make_runtime(data_dir, clock=lambda: NOW)
    try:
        user = new_user(runtime)
        runtime.service.handle_turn(
            user, "s1", "atlanta ga, georgia power. when's the best time to run my dryer today?"
        )
        again = runtime.service.handle_turn(
            user,
            "s1",
            "i think i'm on the overnight advantage plan, 7.3 cents 11pm-7am and like 18 cents otherwise",
        )
        assert "Noted for this conversation: your plan's off-peak 23:00-07:00 at 7.3¢/kWh" in again.text
        assert "dryer" in again.text and "$" in again.text  # the answer again, priced on that plan
        assert "catalog doesn't hold that plan" not in again.text  # (it is used as described)
    finally:
        runtime.close()
