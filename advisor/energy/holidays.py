"""Tariff holidays per utility: the days a time-of-use plan prices like a weekend.

Utilities do not follow the federal calendar. Their tariffs list eight holidays (no Martin Luther
King Jr. Day, no day after Thanksgiving) and say how a holiday on a weekend is observed:

- SDG&E (Electric Rule 1, "Holidays"; the TOU pages list: New Year's Day, Presidents' Day,
  Memorial Day, Independence Day, Labor Day, Veterans Day, Thanksgiving Day, Christmas Day):
  a fixed-date holiday on a Sunday makes the following Monday a holiday too; one on a
  Saturday is not moved to the Friday.
- PG&E (the same eight, "on the dates on which the holidays are legally observed", residential
  TOU schedules' "Holidays" special condition): California observes a Sunday holiday on the
  Monday (Government Code 6700) and does not move a Saturday one, so the rule is the same.

URDB (OpenEI) has no way to say any of this: its tariffs carry only weekday and weekend tables,
so `Tariff.period_at` asks this module instead (see `advisor/energy/tariff.py`).
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

SDGE_RULE_1_URL = "https://www.sdge.com/rates-and-regulations/current-and-effective-tariffs"
PGE_TARIFFS_URL = "https://www.pge.com/tariffs/en/rate-information/electric-rates.html"


class HolidayCalendar(BaseModel):
    """A utility's tariff holidays and where they are defined."""

    model_config = ConfigDict(frozen=True)

    utility: str
    source: str
    sunday_moves_to_monday: bool = True


CALENDARS: dict[str, HolidayCalendar] = {
    "PG&E": HolidayCalendar(utility="PG&E", source=PGE_TARIFFS_URL),
    "SDG&E": HolidayCalendar(utility="SDG&E", source=SDGE_RULE_1_URL),
}


def _nth_weekday(year: int, month: int, weekday: int, nth: int) -> date:
    """The nth (1-based) given weekday of a month; nth = -1 is the last one."""
    if nth > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))
    following = date(year + (month == 12), month % 12 + 1, 1)
    last = following - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def _listed(year: int) -> dict[date, str]:
    """The eight tariff holidays on their calendar dates."""
    monday, thursday = 0, 3
    return {
        date(year, 1, 1): "New Year's Day",
        _nth_weekday(year, 2, monday, 3): "Presidents' Day",
        _nth_weekday(year, 5, monday, -1): "Memorial Day",
        date(year, 7, 4): "Independence Day",
        _nth_weekday(year, 9, monday, 1): "Labor Day",
        date(year, 11, 11): "Veterans Day",
        _nth_weekday(year, 11, thursday, 4): "Thanksgiving Day",
        date(year, 12, 25): "Christmas Day",
    }


@lru_cache(maxsize=64)
def holidays(utility: str, year: int) -> dict[date, str]:
    """{date: name} of the utility's tariff holidays in a year (observed Mondays included);
    an unknown utility has none (its tariff prices holidays as the day of the week)."""
    calendar = CALENDARS.get(utility)
    if calendar is None:
        return {}
    days = _listed(year)
    if calendar.sunday_moves_to_monday:
        for day, name in list(days.items()):
            if day.weekday() == 6:
                days[day + timedelta(days=1)] = f"{name} (observed)"
    return dict(sorted(days.items()))


def holiday_name(utility: str | None, day: date) -> str | None:
    """The holiday's name when `day` is a tariff holiday of the utility, else None."""
    if not utility:
        return None
    return holidays(utility, day.year).get(day)
