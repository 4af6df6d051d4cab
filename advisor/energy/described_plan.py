"""A time-of-use plan as the user describes it ("11 cents off peak and 25 on peak, peak is 5pm to 9pm
weekdays"): most US utilities' plans are not in the catalog, but people read theirs off the bill.
Held for the conversation (the profile keeps a plan's code, not its prices) and priced exactly as
described: one window of hours at one price, the other hours at the other.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from advisor.energy.tariff import PricePeriod, Tariff


class DescribedPlan(BaseModel):
    model_config = ConfigDict(frozen=True)

    window_start: int = Field(ge=0, le=23, description="first hour of the window, local time")
    window_end: int = Field(
        ge=1, le=24, description="hour the window ends (exclusive); before the start = past midnight"
    )
    window_kind: Literal["peak", "off_peak"] = "peak"
    window_usd_per_kwh: float = Field(ge=0, le=2)  # 0: "free nights 9pm-6am"
    other_usd_per_kwh: float = Field(gt=0, le=2)
    weekdays_only: bool = False  # a peak on weekdays only: weekends are all at the other price

    @model_validator(mode="after")
    def _a_window(self) -> DescribedPlan:
        if self.window_start == self.window_end % 24:
            raise ValueError("the window must not be empty or the whole day")
        return self

    def window_hours(self) -> list[int]:
        end = self.window_end if self.window_end > self.window_start else self.window_end + 24
        return [hour % 24 for hour in range(self.window_start, end)]

    def said(self) -> str:
        """ "peak 17:00-21:00 on weekdays at 25¢/kWh, 11¢/kWh the other hours" """
        name = "peak" if self.window_kind == "peak" else "off-peak"
        days = " on weekdays" if self.weekdays_only else ""
        hours = f"{self.window_start:02d}:00-{self.window_end % 24:02d}:00{days}"
        if not self.window_usd_per_kwh:
            return f"free {hours}, {_cents(self.other_usd_per_kwh)}/kWh the other hours"
        return (
            f"{name} {hours} at {_cents(self.window_usd_per_kwh)}/kWh, "
            f"{_cents(self.other_usd_per_kwh)}/kWh the other hours"
        )

    def tariff(self, utility: str | None, as_of: date) -> Tariff:
        """Two periods and their hours, every month alike (the user gave one schedule)."""
        window = 1 if self.window_kind == "peak" else 0
        peak_price, off_price = (
            (self.window_usd_per_kwh, self.other_usd_per_kwh)
            if self.window_kind == "peak"
            else (self.other_usd_per_kwh, self.window_usd_per_kwh)
        )
        day = [window if hour in self.window_hours() else 1 - window for hour in range(24)]
        weekend = [0] * 24 if self.weekdays_only and self.window_kind == "peak" else day
        return Tariff(
            utility=utility or "your utility",
            name="plan (as you described it)",
            periods=[
                PricePeriod(
                    index=0, name="off_peak", usd_per_kwh=off_price, label="Off-Peak" if off_price else "Free"
                ),
                # (the day rate of a "free nights" plan is its standard price, no peak)
                PricePeriod(
                    index=1,
                    name="peak",
                    usd_per_kwh=peak_price,
                    label="Peak" if self.window_kind == "peak" else "Standard",
                ),
            ],
            weekday_schedule=[list(day) for _ in range(12)],
            weekend_schedule=[list(weekend) for _ in range(12)],
            source=f"your description: {self.said()}",
            as_of=as_of,
        )


def _cents(usd: float) -> str:
    cents = usd * 100
    return f"{cents:.1f}¢".replace(".0¢", "¢")
