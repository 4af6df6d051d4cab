"""The analyzer's `@tool` functions (FR-020..024), built once per process over `DataSources`.

Tools read the caller's profile and the turn's clock from `ToolRuntime.context` (a
`TurnContext`), so one compiled agent serves every user. Each returns an `Observation` as
JSON and never raises: a failed API becomes an observation that says so (EC-001).
Every tool is `return_direct`: the analyzer gathers data in one model call and the
recommend node explains it, so a turn needs two LLM calls, not four.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any, Literal
from zoneinfo import ZoneInfo

from langchain.tools import ToolRuntime
from langchain_core.tools import BaseTool, tool

from advisor.energy.appliances import (
    APPLIANCES,
    MIN_SAVING_SHARE,
    MIN_SAVING_USD,
    STATED,
    appliance_for,
    appliance_verdict,
    cheapest_windows,
    run_cost,
    run_for,
    stated_appliance,
)
from advisor.energy.catalog import known_utilities
from advisor.energy.described_plan import DescribedPlan
from advisor.energy.ev import (
    DEFAULT_CHARGING_EFFICIENCY,
    DEFAULT_LEVEL2_CHARGER_KW,
    EvEnergy,
    charge_duration_h,
    charge_now,
    charging_power_kw,
    cheapest_contiguous_window,
    cheapest_slots,
    compare_costs,
    ev_energy_needed,
)
from advisor.energy.holidays import holiday_name
from advisor.energy.plan_compare import KWH_PER_MILE
from advisor.energy.pv import INVERTER_EFFICIENCY, SYSTEM_LOSSES, pv_forecast, surplus_windows
from advisor.energy.tariff import Tariff, hourly_prices, period_label, period_windows
from advisor.energy.vehicles import typical_ev, vehicle_spec
from advisor.tools import plan_choice
from advisor.tools.data import DataSources, home_charging_power, local_timezone, tariff_as_of, tariff_source
from advisor.tools.heating import heating_costs
from advisor.tools.http import ApiError
from advisor.tools.models import Observation, RatePeriod, RateSchedule
from advisor.tools.monthly_charging import monthly_charging_cost
from advisor.tools.open_meteo import OPEN_METEO_CREDIT, HourlyWeather
from advisor.understanding.models import WEEKDAYS
from config.redact import redact
from profiles.models import UserProfile


@dataclass(frozen=True)
class TurnContext:
    """Per-turn facts the tools need; passed as `context=` when the analyzer runs."""

    user_id: str
    profile: UserProfile
    now: datetime
    # they said their plan has one price all day ("the standard one, not the hourly thing"): an
    # average price we assume is then only the level, never a guess at cheaper hours
    one_price_plan: bool = False
    # their time-of-use plan as they described it in this conversation (prices and peak hours)
    described_plan: DescribedPlan | None = None


_SCHEMAS: dict[str, Any] = {}


def _tool(**options: Any) -> Any:
    """`@tool`, with each tool's argument schema built once per process: building it (pydantic over
    `ToolRuntime`) was over half the time of building a runtime, and every runtime (each test, each
    replayed case) builds the same tools over its own `DataSources`."""

    def wrap(function: Any) -> BaseTool:
        schema = _SCHEMAS.get(function.__name__)
        made = (
            tool(**options, args_schema=schema)(function) if schema is not None else tool(**options)(function)
        )
        _SCHEMAS.setdefault(function.__name__, made.args_schema)
        return made

    return wrap


def build_tools(data: DataSources) -> list[BaseTool]:
    @_tool(return_direct=True)
    def plan_ev_charging(
        runtime: ToolRuntime[TurnContext, Any],
        current_soc_pct: float = 30,
        target_soc_pct: float = 80,
        ready_by_hour: int | None = None,
        one_session: bool = False,
        ready_by_minute: int = 0,
        ready_by_day: str | None = None,
        ready_in_minutes: int | None = None,
        tonight: bool = False,
        miles_needed: float | None = None,
        plug_in_hour: int | None = None,
        plug_in_minute: int = 0,
    ) -> str:
        """Cheapest time to charge the user's EV before ready_by_hour:ready_by_minute (local) on
        ready_by_day ('today', 'tomorrow' or a weekday such as 'monday'; default: the next time that
        hour comes; no ready_by_hour: 07:00, said as assumed), or ready_in_minutes from now ('in 1 hour'); tonight=True when the user said
        tonight (ready the morning after); miles_needed when the user said how far they need to
        drive instead of a charge level; plug_in_hour:plug_in_minute (local, 24 h) when the car is
        plugged in later than now ('I get home at 6pm'). With costs."""
        return plan_charging(
            data,
            runtime.context,
            current_soc_pct,
            target_soc_pct,
            ready_by_hour,
            one_session,
            ready_by_minute,
            ready_by_day,
            ready_in_minutes=ready_in_minutes,
            tonight=tonight,
            miles_needed=miles_needed,
            plug_in_hour=plug_in_hour,
            plug_in_minute=plug_in_minute,
        ).model_dump_json()

    @_tool(return_direct=True)
    def compare_charging_costs(
        runtime: ToolRuntime[TurnContext, Any],
        kwh: float,
        ready_by_hour: int = 7,
        ready_by_day: str | None = None,
    ) -> str:
        """Cost of charging kwh now vs in the cheapest hours before ready_by_hour (on ready_by_day)."""
        return compare_charging(data, runtime.context, kwh, ready_by_hour, ready_by_day).model_dump_json()

    @_tool(return_direct=True)
    def get_tariff_prices(runtime: ToolRuntime[TurnContext, Any], day: str = "today") -> str:
        """The user's time-of-use periods and $/kWh prices for a day: today, tomorrow or a weekday
        ('saturday' = the next Saturday, today if it is Saturday)."""
        return tariff_prices(data, runtime.context, day).model_dump_json()

    @_tool(return_direct=True)
    def get_weather_forecast(
        runtime: ToolRuntime[TurnContext, Any], hours: int = 24, day: str | None = None
    ) -> str:
        """Hourly temperature and cloud cover at the user's home: the next `hours`, or one day
        (today, tomorrow or a weekday such as "saturday") when the user names it."""
        return weather_forecast(data, runtime.context, hours, day).model_dump_json()

    @_tool(return_direct=True)
    def get_solar_forecast(
        runtime: ToolRuntime[TurnContext, Any], day: str = "today", system_kw: float | None = None
    ) -> str:
        """Expected output of the user's solar panels for a day (today, tomorrow or a weekday name
        such as "saturday"), and surplus hours. system_kw: the size of panels the user asks about
        that are not theirs (a relative's), instead of their own."""
        return solar_forecast(data, runtime.context, day, system_kw).model_dump_json()

    @_tool(return_direct=True)
    def get_typical_solar_production(
        runtime: ToolRuntime[TurnContext, Any],
        system_kw: float | None = None,
        size_needed: bool = False,
        house_kwh_per_month: float | None = None,
    ) -> str:
        """Typical yearly and monthly output of the user's solar panels (PVWatts), or of a system of
        system_kw kW when the user asks about a size (e.g. one they are thinking of buying).
        size_needed: the user asks what size they need ("how many panels do i need"); with
        house_kwh_per_month (their use, as said) the size that makes that much in a typical year."""
        if size_needed and system_kw is None:
            return solar_size_needed(data, runtime.context, house_kwh_per_month).model_dump_json()
        return typical_solar(data, runtime.context, system_kw).model_dump_json()

    @_tool(return_direct=True)
    def compare_rate_plans(
        runtime: ToolRuntime[TurnContext, Any],
        house_kwh_per_month: float | None = None,
        ev_kwh_per_month: float | None = None,
        ev_miles_per_month: float | None = None,
    ) -> str:
        """Which of the user's utility's rate plans is cheapest for them: a year's bill on each plan
        (fixed charges included) from their usage; give the usage the user stated, if any."""
        return plan_choice.compare_rate_plans(
            data,
            runtime.context,
            house_kwh_per_month=house_kwh_per_month,
            ev_kwh_per_month=ev_kwh_per_month,
            ev_miles_per_month=ev_miles_per_month,
        ).model_dump_json()

    @_tool(return_direct=True)
    def estimate_monthly_charging_cost(
        runtime: ToolRuntime[TurnContext, Any], miles_per_month: float | None = None
    ) -> str:
        """What charging the EV at home costs a month ("what would charging cost per month"): the
        miles a month (give the user's, if they said; else a US average) priced in each night's
        cheapest hours on the user's rate plan."""
        return monthly_charging_cost(data, runtime.context, miles_per_month).model_dump_json()

    @_tool(return_direct=True)
    def compare_heating_costs(
        runtime: ToolRuntime[TurnContext, Any],
        fuel: Literal["gas", "oil", "propane"],
        fuel_price_usd: float,
        cop: float | None = None,
        afue: float | None = None,
        electricity_usd_per_kwh: float | None = None,
        fuel_units_per_year: float | None = None,
    ) -> str:
        """What the same heat costs from a heat pump and from the user's gas, oil or propane furnace
        ("oil is 4.10 a gallon, would a heat pump be cheaper?"): the fuel's price as they said it
        (dollars per therm of gas, per gallon of oil or propane), priced against their electricity
        price; cop, afue (percent), electricity_usd_per_kwh and fuel_units_per_year (the therms or
        gallons they burn a year, for a year's cost both ways) only if they gave them."""
        return heating_costs(
            runtime.context, fuel, fuel_price_usd, cop, afue, electricity_usd_per_kwh, fuel_units_per_year
        ).model_dump_json()

    return [
        plan_ev_charging,
        compare_charging_costs,
        estimate_monthly_charging_cost,
        compare_heating_costs,
        compare_rate_plans,
        get_tariff_prices,
        get_weather_forecast,
        get_solar_forecast,
        get_typical_solar_production,
        _appliance_tool(data),
    ]


# --- helpers -------------------------------------------------------------------------------


def _hours_without_prices(
    name: str,
    context: TurnContext,
    battery_kwh: float,
    current_soc_pct: float,
    target_soc_pct: float,
    miles_needed: float | None,
    power: float,
    assumptions: list[str],
) -> Observation:
    """A charge's energy and hours from the car and the charger alone (no prices known yet)."""
    target_soc_pct, range_warning = _level_for_miles(
        miles_needed, current_soc_pct, target_soc_pct, battery_kwh, assumptions
    )
    energy = _energy_to_add(battery_kwh, current_soc_pct, target_soc_pct, assumptions)
    summary = (
        f"Needs {energy.grid_kwh:.1f} kWh from the grid ({energy.battery_kwh_added:.1f} kWh into the battery) "
        f"at {power:g} kW: {charge_duration_h(energy.grid_kwh, power):.1f} h. Which of those hours are cheapest "
        f"depends on your utility's prices: tell me {_what_prices_need(context)} and I'll time it and price it."
    )
    return Observation(
        tool=name,
        summary=summary,
        facts=_energy_facts(energy, power),
        source="the car's battery and the charger's power (no prices)",
        as_of=context.now,
        assumptions=assumptions,
        warnings=[range_warning] if range_warning else [],
    )


def _what_prices_need(context: TurnContext) -> str:
    """What the user has not told us that timing and pricing a charge needs (never what we hold)."""
    location = context.profile.location if context.profile else None
    placed = location is not None and bool(location.zip_code or location.city)
    utility = location is not None and bool(location.utility_provider)
    if placed and not utility:
        return "your utility"
    if utility and not placed:
        return "your ZIP code"
    return "your ZIP code and utility"


def _level_for_miles(
    miles_needed: float | None,
    current_soc_pct: float,
    target_soc_pct: float,
    battery_kwh: float,
    assumptions: list[str],
) -> tuple[float, str | None]:
    """ "I need like 40 miles": the range, at the EPA-style kWh a mile from the wall (losses in), as
    a charge level from the current one; with a warning when it is more than the battery holds."""
    if miles_needed is None or not 0 < miles_needed <= 1000:
        return target_soc_pct, None
    into_battery = miles_needed * KWH_PER_MILE * DEFAULT_CHARGING_EFFICIENCY
    wanted = current_soc_pct + 100 * into_battery / battery_kwh
    warning = None
    if wanted > 100:  # "I need to drive 400 miles tomorrow": more than the battery holds
        full_miles = battery_kwh * (100 - current_soc_pct) / 100 / DEFAULT_CHARGING_EFFICIENCY / KWH_PER_MILE
        warning = (
            f"{miles_needed:g} miles needs more than your battery holds from {current_soc_pct:g}%: this plans a "
            f"full charge, about {full_miles:.0f} miles; plan a stop to charge on the way."
        )
    assumptions.append(
        f"{miles_needed:g} miles of range at {KWH_PER_MILE:g} kWh a mile from the wall (a typical EV; "
        "check your car's rating)"
    )
    return min(100.0, round(wanted, 1)), warning


def _energy_to_add(
    battery_kwh: float, current_soc_pct: float, target_soc_pct: float, assumptions: list[str]
) -> EvEnergy:
    energy = ev_energy_needed(
        battery_kwh=battery_kwh, soc_now_pct=current_soc_pct, soc_target_pct=target_soc_pct
    )
    assumptions.append(
        f"charging efficiency {energy.efficiency:.0%}; from {current_soc_pct:g}% to {target_soc_pct:g}%"
    )
    return energy


def _energy_facts(energy: EvEnergy, power: float) -> dict[str, float]:
    """The energy, power and hours a charge's answer states (each traced)."""
    return {
        "grid_kwh": round(energy.grid_kwh, 2),
        "battery_kwh_added": round(energy.battery_kwh_added, 2),
        "power_kw": power,
        "hours": round(charge_duration_h(energy.grid_kwh, power), 2),
    }


def _failed(
    tool_name: str, summary: str, context: TurnContext, warnings: list[str] | None = None
) -> Observation:
    """A tool that could not answer. Its words may carry an API's error reason (already redacted
    by ApiError); redacted once more here, as this is what replies, sessions and traces keep."""
    return Observation(
        tool=tool_name,
        ok=False,
        summary=redact(summary),
        source="none",
        as_of=context.now,
        warnings=[redact(warning) for warning in warnings or []],
    )


def _hm(moment: datetime) -> str:
    """'02:51'; on a fall-back night the repeated hour carries its zone ('01:30 PDT', '01:30 PST')."""
    label = moment.strftime("%H:%M")
    if moment.tzinfo is not None and moment.replace(fold=1 - moment.fold).utcoffset() != moment.utcoffset():
        label += f" {moment.tzname()}"
    return label


def _day_label(moment: datetime, now_local: datetime) -> str:
    return (
        "today"
        if moment.date() == now_local.date()
        else (
            "tomorrow"
            if moment.date() == now_local.date() + timedelta(days=1)
            else moment.strftime("%a %d %b")
        )
    )


def _window_text(start: datetime, end: datetime, now_local: datetime) -> str:
    """'01:40-07:00 tomorrow', or '21:26 today-07:00 tomorrow' when it runs past midnight."""
    first, last = _day_label(start, now_local), _day_label(end, now_local)
    if first == last or (end.hour, end.minute) == (0, 0) and end - start <= timedelta(days=1):
        return f"{_hm(start)}-{_hm(end)} {first}"
    return f"{_hm(start)} {first}-{_hm(end)} {last}"


def _normal_day(day: str | None) -> str | None:
    """'Monday' -> 'monday'; anything but today/tomorrow/a weekday -> None."""
    cleaned = (day or "").strip().lower()
    return cleaned if cleaned in ("today", "tomorrow", *WEEKDAYS) else None


def _fahrenheit(celsius: float) -> float:
    return celsius * 9 / 5 + 32


def _day_ahead(today: date, named: str) -> date:
    """The date a normalised day names: "saturday" is the next Saturday (today if it is one)."""
    if named in ("today", "tomorrow"):
        return today + timedelta(days={"today": 0, "tomorrow": 1}[named])
    return today + timedelta(days=(WEEKDAYS.index(named) - today.weekday()) % 7)


def _forecast_days(today: date, target: date | None) -> int:
    """Forecast days to ask Open-Meteo for: two (today and tomorrow) unless a later day is asked,
    then through that day with one to spare (`today` is the clock's date, which may be a day off
    the home's)."""
    ahead = 0 if target is None else (target - today).days
    return 2 if ahead <= 1 else min(16, ahead + 2)


def _beyond_forecast(weather: HourlyWeather, now: datetime, target: date) -> str:
    last = max(weather.times).date() if weather.times else now.date()
    return (
        f"The weather forecast I have reaches only to {last:%a %d %b}, so I can't forecast "
        f"{target:%a %d %b} yet; ask me again closer to the day."
    )


def _capitalized(name: str) -> str:
    """ "your utility" opening a sentence is "Your utility"; a name keeps its own case ("eWEB")."""
    return name[:1].upper() + name[1:] if name.islower() else name


# what an assumed average price cannot say: which of their plan's hours are cheaper
_HOURS_UNKNOWN = "I don't know your plan's hours, so I can't say which are cheaper."
DAYS_PER_MONTH = round(365 / 12, 1)  # an average month, for a load that runs every day


def _catalog_owners() -> str:
    """ "PG&E's and SDG&E's": whose plans the catalog holds."""
    names = [f"{name}'s" for name in known_utilities()]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _one_price(tariff: Tariff, *, lower: bool = False) -> str:
    """ "Your price is the same every hour" only when it is theirs; an average we assumed for them
    says so (their plan may have cheaper hours)."""
    said = (
        "At the one average price I used, every hour costs the same"
        if tariff.illustrative
        else "Your price is the same every hour"
    )
    return said[0].lower() + said[1:] if lower else said


def _a(noun: str) -> str:
    """ "an AC", "a dryer", "an 8.2": the article as it is said aloud."""
    shown = "AC" if noun.lower() == "ac" else noun
    spoken_vowel = noun[:1].lower() in "aeio" or re.match(r"(?:8|11|18)(?:\D|$)|8\d", noun) is not None
    return f"an {shown}" if spoken_vowel else f"a {shown}"


def _charging_at_once(when: str, *, gerund: bool = False) -> str:
    """The baseline a plan is compared with: charging from the moment the car is plugged in."""
    if when == "now":
        return "plugging in now" if gerund else "plugged in now"
    return (
        f"charging as soon as it's plugged in {when}"
        if gerund
        else f"it charges as soon as it's plugged in {when}"
    )


def _from_label(when: str) -> str:
    return "now" if when == "now" else when.removeprefix("at ")


def _next_local_hour(now_local: datetime, hour: int, minute: int = 0, day: str | None = None) -> datetime:
    """The deadline as a local time: the next `hour:minute`, or that time on `day` ('today',
    'tomorrow', 'monday', ...; a weekday means its next date, a week ahead when it has passed).
    Built on the calendar date, so a deadline across a DST change keeps its wall-clock time."""
    zone = now_local.tzinfo
    today = now_local.date()
    if day == "tomorrow":
        dates = [today + timedelta(days=1)]
    elif day in WEEKDAYS:
        ahead = (WEEKDAYS.index(day) - today.weekday()) % 7
        dates = [today + timedelta(days=ahead), today + timedelta(days=ahead + 7)]
    else:  # 'today' or nothing: the next time the clock shows hour:minute
        dates = [today, today + timedelta(days=1)]
    for candidate_day in dates:
        candidate = _local(candidate_day, hour, minute, zone)  # a time that does not exist moves on
        if candidate.timestamp() > now_local.timestamp():
            return candidate
    return candidate


def _plug_in_time(
    now_local: datetime, hour: int, minute: int, ready_by_hour: int, ready_by_minute: int, day: str | None
) -> datetime:
    """When charging can start for someone who gets home at `hour:minute`: `now_local` when that time
    came within the day before the deadline ("home around 6pm, full by 7am" said at 9:45 pm: the car
    is in the driveway), otherwise the next time the clock shows it."""
    came = _local(now_local.date(), hour, minute, now_local.tzinfo)
    if came.timestamp() > now_local.timestamp():
        came = _local(now_local.date() - timedelta(days=1), hour, minute, now_local.tzinfo)
    deadline = _next_local_hour(now_local, ready_by_hour, ready_by_minute, day)
    if _hours_until(came, deadline) < 24:  # the deadline is the one that follows this homecoming
        return now_local
    return _next_local_hour(now_local, hour, minute)


def _hours_until(now_local: datetime, deadline: datetime) -> float:
    """Real hours between two local times (same-zone subtraction would use wall-clock time)."""
    return (deadline.timestamp() - now_local.timestamp()) / 3600


def _deadline_label(deadline: datetime, now_local: datetime) -> str:
    """'07:00', or '07:00 Mon 30 Nov' when the deadline is not within the next day."""
    if deadline.timestamp() - now_local.timestamp() <= 24 * 3600:
        return _hm(deadline)
    return f"{_hm(deadline)} {deadline:%a %d %b}"


DEFAULT_READY_HOUR = 7  # a charge with no time said is planned to be ready by the morning


def plan_charging(
    data: DataSources,
    context: TurnContext,
    current_soc_pct: float,
    target_soc_pct: float,
    ready_by_hour: int | None,
    one_session: bool,
    ready_by_minute: int = 0,
    ready_by_day: str | None = None,
    *,
    ready_in_minutes: int | None = None,
    tonight: bool = False,
    miles_needed: float | None = None,
    plug_in_hour: int | None = None,
    plug_in_minute: int = 0,
) -> Observation:
    name = "plan_ev_charging"
    profile = context.profile
    equipment = profile.equipment
    assumptions: list[str] = []
    if ready_by_hour is None:
        ready_by_hour = DEFAULT_READY_HOUR
        if ready_in_minutes is None:
            # "when should i charge it": no time said, so the morning, and the answer says so
            assumptions.append(f"ready by {DEFAULT_READY_HOUR:02d}:00 (you didn't say when)")
    if (
        not 0 <= ready_by_hour <= 23
        or not 0 <= ready_by_minute <= 59
        or not 0 <= current_soc_pct <= 100
        or not 0 <= target_soc_pct <= 100
    ):
        return _failed(name, "ready_by_hour must be 0-23, minutes 0-59 and charge levels 0-100 %.", context)
    if plug_in_hour is not None and not (0 <= plug_in_hour <= 23 and 0 <= plug_in_minute <= 59):
        return _failed(name, "plug_in_hour must be 0-23 and plug_in_minute 0-59.", context)
    day = _normal_day(ready_by_day)
    if ready_by_day and day is None:
        return _failed(
            name, f"ready_by_day must be today, tomorrow or a weekday, not {ready_by_day!r}.", context
        )
    if ready_in_minutes is not None and not 1 <= ready_in_minutes <= 7 * 24 * 60:
        return _failed(name, "ready_in_minutes must be between 1 minute and 7 days.", context)
    spec = vehicle_spec(
        equipment.ev_model if equipment else None, equipment.ev_battery_kwh if equipment else None
    )
    battery_kwh = (equipment.ev_battery_kwh if equipment else None) or (spec.battery_kwh if spec else None)
    if battery_kwh is None:
        # the user would rather not say which car ("skip that, just give me a rough idea"): a rough
        # plan for the middle of the cars we know, said as such, beats no plan
        spec, cars = typical_ev()
        battery_kwh = spec.battery_kwh
        assumptions.append(
            f"you didn't say which EV, so a typical one: battery {battery_kwh:g} kWh and on-board charger "
            f"{spec.onboard_charger_kw:g} kW, the median of the {cars} electric cars I know (tell me yours "
            "for its own figures)"
        )
    elif equipment is None or equipment.ev_battery_kwh is None:
        assumptions.append(f"battery {battery_kwh:g} kWh (typical for a {spec.name})")
    lookup = data.resolve_tariff(profile, one_price=context.one_price_plan, described=context.described_plan)
    charger_kw = equipment.ev_charger_kw if equipment and equipment.ev_charger_kw else None
    if charger_kw is None:
        charger_kw = DEFAULT_LEVEL2_CHARGER_KW
        assumptions.append(f"Level 2 charger of {charger_kw:g} kW (not in your profile)")
    power = charging_power_kw(charger_kw, spec.onboard_charger_kw if spec else None)
    if spec and power < charger_kw:
        assumptions.append(f"the {spec.name} accepts at most {spec.onboard_charger_kw:g} kW AC")
    if lookup.tariff is None:
        # "how long for 10 to 80" from someone whose prices we do not know yet: the hours stand on the
        # car and the charger; which hours are cheapest is said to need their utility
        return _hours_without_prices(
            name, context, battery_kwh, current_soc_pct, target_soc_pct, miles_needed, power, assumptions
        )
    tariff = lookup.tariff
    zone_name, zone_note = local_timezone(profile)
    if zone_note:
        assumptions.append(zone_note)
    zone = ZoneInfo(zone_name)
    now_local = context.now.astimezone(zone)
    if ready_in_minutes is None and tonight and day is None and now_local.hour < 12 and ready_by_hour < 12:
        # "tonight" said at 4 am means this evening, ready the morning after (and "if i cant plug
        # in till 11" then is 11 pm this evening, not the night just gone); "by 7pm tonight" said
        # at 2:40 am is this evening's 7 pm
        day = "tomorrow"
    # "I get home at 6pm": charging can start then (the next time the clock shows it), not now
    start = (
        now_local
        if plug_in_hour is None
        else _plug_in_time(now_local, plug_in_hour, plug_in_minute, ready_by_hour, ready_by_minute, day)
    )
    if ready_in_minutes is not None:  # "in 1 hour": from now, to the minute
        deadline = (context.now.astimezone(timezone.utc) + timedelta(minutes=ready_in_minutes)).astimezone(
            zone
        )
    else:
        # the next deadline after the car is plugged in (the morning after "home at 6pm"); "tomorrow"
        # and "today" are said from now, not from the plug-in ("by 6:45 tmrw" plugged in at
        # midnight is tomorrow's 6:45, not the morning after)
        anchor = now_local if day in ("today", "tomorrow") else start
        deadline = _next_local_hour(anchor, ready_by_hour, ready_by_minute, day)
        if deadline <= start and anchor is not start:
            deadline = _next_local_hour(start, ready_by_hour, ready_by_minute, None)
    if deadline <= start:
        return _failed(
            name,
            f"The car is plugged in at {_hm(start)}, after the {_hm(deadline)} it must be ready by.",
            context,
        )
    when = "now" if start is now_local else f"at {_hm(start)} {_day_label(start, now_local)}"
    target_soc_pct, range_warning = _level_for_miles(
        miles_needed, current_soc_pct, target_soc_pct, battery_kwh, assumptions
    )
    energy = _energy_to_add(battery_kwh, current_soc_pct, target_soc_pct, assumptions)
    hours = int(_hours_until(now_local, deadline)) + 2
    prices = hourly_prices(tariff, now_local, hours, zone_name)
    planner = cheapest_contiguous_window if one_session else cheapest_slots
    plan = planner(prices, energy_kwh=energy.grid_kwh, power_kw=power, start=start, deadline=deadline)
    baseline = charge_now(prices, energy_kwh=energy.grid_kwh, power_kw=power, start=start)
    warnings = list(lookup.warnings) + ([range_warning] if range_warning else [])
    credit = None
    solar_kwh = 0.0
    location = profile.location
    if (
        equipment
        and equipment.solar_capacity_kw
        and location
        and location.lat is not None
        and location.lon is not None
    ):
        try:
            weather, result = data.open_meteo.hourly_forecast(lat=location.lat, lon=location.lon)
            pv = pv_forecast(
                system_kw=equipment.solar_capacity_kw,
                times=weather.times,
                tilted_irradiance_w_m2=weather.tilted_w_m2,
                air_temperature_c=weather.temperature_c,
            )
            # only the hours between now and the deadline: a window in progress counts, hours after it don't
            before = [h for h in pv if h.start + timedelta(hours=1) > start and h.start < deadline]
            windows = surplus_windows(before)
            solar_kwh = sum(kwh for _, _, kwh in windows)
            credit = OPEN_METEO_CREDIT
            if result.stale:
                warnings.append(
                    "The weather forecast is from an earlier cached copy (the service did not answer)."
                )
        except ApiError as exc:
            warnings.append(f"No solar forecast ({exc.reason}); the plan uses prices only.")
    comparison = compare_costs(baseline, plan, solar_surplus_kwh=solar_kwh)
    windows_text = ", ".join(_window_text(a, b, now_local) for a, b in plan.windows()) or "no hours"
    periods = sorted({slot.label or slot.period for slot in plan.slots})
    summary = (
        f"Needs {energy.grid_kwh:.1f} kWh from the grid ({energy.battery_kwh_added:.1f} kWh into the battery) "
        f"at {power:g} kW: {charge_duration_h(energy.grid_kwh, power):.1f} h. "
        f"Cheapest before {_deadline_label(deadline, now_local)}: {windows_text} ({', '.join(periods) or 'none'}) for ${plan.cost_usd:.2f}"
    )
    flat = len({period.usd_per_kwh for period in tariff.periods}) <= 1  # the plan, not just these hours
    latest_start: datetime | None = None
    if energy.grid_kwh <= 0:
        summary = f"Nothing to charge: the car is at {current_soc_pct:g}%, already at or above the {target_soc_pct:g}% wanted."
    elif not plan.feasible:
        # A saving is only ever stated between plans that deliver the same energy: here the deadline
        # cannot be met, so say what is achievable by then, and when the full charge would finish.
        delivered = max(0.0, energy.grid_kwh - plan.shortfall_kwh)
        reached = min(target_soc_pct, current_soc_pct + delivered * energy.efficiency / battery_kwh * 100)
        duration_h = charge_duration_h(energy.grid_kwh, power)
        finish = (start.astimezone(timezone.utc) + timedelta(hours=duration_h)).astimezone(now_local.tzinfo)
        # priced over the whole charge, not just up to the deadline
        full = charge_now(
            hourly_prices(tariff, start, int(duration_h) + 2, zone_name),
            energy_kwh=energy.grid_kwh,
            power_kw=power,
            start=start,
        )
        summary = (
            f"Needs {energy.grid_kwh:.1f} kWh from the grid ({energy.battery_kwh_added:.1f} kWh into the battery) "
            f"at {power:g} kW: {charge_duration_h(energy.grid_kwh, power):.1f} h — more than the time left before "
            f"{_deadline_label(deadline, now_local)}. Charging from {_from_label(when)} until then delivers {delivered:.1f} kWh (to about {reached:.0f}%) "
            f"for ${plan.cost_usd:.2f}; {plan.shortfall_kwh:.1f} kWh short of {target_soc_pct:g}%. Plugged in {when}, "
            f"the full charge would finish at {_hm(finish)} {_day_label(finish, now_local)} for ${full.cost_usd:.2f}."
        )
    elif comparison.savings_usd >= 0.01 and not flat:
        summary += f", vs ${baseline.cost_usd:.2f} if {_charging_at_once(when)} (saves ${comparison.savings_usd:.2f})."
    elif flat:
        # (a cent "saved" on one price all day is the rounding of a part hour, never a saving)
        # one price all day: no window is cheaper than another, so none is offered as the cheapest
        needs = (
            f"Needs {energy.grid_kwh:.1f} kWh from the grid ({energy.battery_kwh_added:.1f} kWh into the battery) "
            f"at {power:g} kW: {charge_duration_h(energy.grid_kwh, power):.1f} h. "
        )
        by = _deadline_label(deadline, now_local)
        # one price all day: when to start is what is left to say (the latest start that still finishes)
        latest = deadline - timedelta(hours=charge_duration_h(energy.grid_kwh, power))
        latest_start = latest if latest.timestamp() > start.timestamp() else None
        day = "" if _day_label(latest, now_local) == "today" else f" {_day_label(latest, now_local)}"
        start_by = f" To be done by then, start by {_hm(latest)}{day} at the latest." if latest_start else ""
        summary = (
            # an average we assumed says nothing of their plan's hours: "now is fine" would be a guess
            needs
            + f"At the average price I assumed ({prices[0].usd_per_kwh * 100:.2f}¢/kWh), this charge costs about "
            f"${plan.cost_usd:.2f} before {by}; {_HOURS_UNKNOWN}{start_by}"
            if tariff.illustrative
            else needs
            + f"{_one_price(tariff)}, so this charge costs about ${plan.cost_usd:.2f} whenever it runs "
            f"before {by}; {_charging_at_once(when, gerund=True)} is fine.{start_by}"
        )
    else:
        summary += (
            f"; {_charging_at_once(when, gerund=True)} costs the same (${baseline.cost_usd:.2f}),"
            " as it is already a cheap period."
        )
    if comparison.solar_first_usd is not None:
        summary += (
            f" Solar surplus before then: {solar_kwh:.1f} kWh; solar-first ${comparison.solar_first_usd:.2f}."
        )
    if start is not now_local:
        assumptions.append(f"plugged in {when}, as you said")
    elif plug_in_hour is not None:
        assumptions.append(
            f"the car is home already (you said {plug_in_hour:02d}:{plug_in_minute:02d}), so charging can start now"
        )
    household = profile.household
    if solar_kwh and household and household.work_schedule and "office" in household.work_schedule.lower():
        assumptions.append(
            f"your profile says '{household.work_schedule}', so daytime solar charging needs the car at home"
        )
    return Observation(
        tool=name,
        summary=summary,
        facts={
            **_energy_facts(energy, power),
            "windows": [[a.isoformat(), b.isoformat()] for a, b in plan.windows()],
            "planned_cost_usd": plan.cost_usd,
            "charge_now_cost_usd": baseline.cost_usd,
            # a saving only between plans that deliver the same energy
            "savings_usd": comparison.savings_usd if plan.feasible and energy.grid_kwh > 0 else None,
            "feasible": plan.feasible,
            "shortfall_kwh": plan.shortfall_kwh,
            "solar_first_cost_usd": comparison.solar_first_usd,
            "tariff": f"{tariff.utility} {tariff.name}",
            "latest_start": latest_start.isoformat() if latest_start is not None else None,
        },
        source=tariff_source(lookup, tariff),
        as_of=tariff_as_of(tariff),
        is_mock=lookup.is_mock or data.is_mock,
        assumptions=assumptions,
        warnings=warnings,
        credit=credit,
        # planned vs plugged in now deliver the same energy only when the plan finishes by the deadline
        comparable=plan.feasible and energy.grid_kwh > 0,
    )


def compare_charging(
    data: DataSources, context: TurnContext, kwh: float, ready_by_hour: int, ready_by_day: str | None = None
) -> Observation:
    name = "compare_charging_costs"
    day = _normal_day(ready_by_day)
    if not 0 < kwh <= 500 or not 0 <= ready_by_hour <= 23 or (ready_by_day and day is None):
        return _failed(
            name,
            "kwh must be between 0 and 500, ready_by_hour 0-23 and ready_by_day today, tomorrow or a weekday.",
            context,
        )
    lookup = data.resolve_tariff(
        context.profile, one_price=context.one_price_plan, described=context.described_plan
    )
    if lookup.tariff is None:
        return _failed(name, "I can't price charging without your rate plan.", context, lookup.warnings)
    zone_name, zone_note = local_timezone(context.profile)
    now_local = context.now.astimezone(ZoneInfo(zone_name))
    deadline = _next_local_hour(now_local, ready_by_hour, 0, day)
    assumptions = [note for note in (zone_note,) if note]
    power = home_charging_power(context.profile.equipment, assumptions)
    duration_h = charge_duration_h(kwh, power)
    horizon = max(int(_hours_until(now_local, deadline)), int(duration_h)) + 2
    prices = hourly_prices(lookup.tariff, now_local, horizon, zone_name)
    plan = cheapest_slots(prices, energy_kwh=kwh, power_kw=power, start=now_local, deadline=deadline)
    baseline = charge_now(prices, energy_kwh=kwh, power_kw=power, start=now_local)
    result = compare_costs(baseline, plan)
    if plan.feasible:
        summary = (
            f"{kwh:g} kWh at {power:g} kW: ${baseline.cost_usd:.2f} now vs ${plan.cost_usd:.2f} in the cheapest hours "
            f"before {_deadline_label(deadline, now_local)} (saves ${result.savings_usd:.2f})."
        )
    else:  # different energy by the deadline: no saving to state
        summary = (
            f"{kwh:g} kWh at {power:g} kW takes {duration_h:.1f} h, more than the time before "
            f"{_deadline_label(deadline, now_local)}: "
            f"plugged in now it costs ${baseline.cost_usd:.2f}; by {_hm(deadline)} only "
            f"{kwh - plan.shortfall_kwh:.1f} kWh fit, for ${plan.cost_usd:.2f}."
        )
    return Observation(
        tool=name,
        summary=summary,
        facts={
            "now_usd": baseline.cost_usd,
            "planned_usd": plan.cost_usd,
            "savings_usd": result.savings_usd if plan.feasible else None,
            "feasible": plan.feasible,
            "power_kw": power,
        },
        source=tariff_source(lookup, lookup.tariff),
        as_of=tariff_as_of(lookup.tariff),
        is_mock=lookup.is_mock or data.is_mock,
        assumptions=assumptions,
        warnings=lookup.warnings,
        comparable=plan.feasible,  # the same kWh by the deadline, or not
    )


def tariff_prices(data: DataSources, context: TurnContext, day: str) -> Observation:
    name = "get_tariff_prices"
    lookup = data.resolve_tariff(
        context.profile, one_price=context.one_price_plan, described=context.described_plan
    )
    if lookup.tariff is None:
        return _failed(name, "I can't show prices without your rate plan.", context, lookup.warnings)
    tariff = lookup.tariff
    zone_name, zone_note = local_timezone(context.profile)
    now_local = context.now.astimezone(ZoneInfo(zone_name))
    wanted = _normal_day(day)
    if wanted is None:
        return _failed(name, f"day must be today, tomorrow or a weekday, not {day!r}.", context)
    target = _day_ahead(now_local.date(), wanted)
    day = (
        "today"
        if target == now_local.date()
        else "tomorrow"
        if target == now_local.date() + timedelta(days=1)
        else target.strftime("%A")
    )
    runs = period_windows(tariff, target, zone_name)
    current = tariff.period_at(now_local)
    text = ", ".join(
        f"{period_label(tariff, period)} {start:02d}:00-{end:02d}:00 ${price:.2f}"
        for period, start, end, price in runs
    )
    day_type = tariff.day_type(target)
    kind = {
        "holiday": f"{holiday_name(tariff.holiday_calendar, target)}, priced as a weekend",
        "weekend": "weekend",
    }
    summary = f"{_capitalized(tariff.utility)} {tariff.name} {day} ({target:%a %d %b}{', ' + kind[day_type] if day_type in kind else ''}): {text} per kWh."
    if tariff.illustrative and len(runs) == 1:
        # "when is peak on georgia power": an average we assumed has no peak to show; "flat
        # 00:00-24:00" read as if their utility had none
        summary = (
            # (the day asked is said: "what about saturday?" is no word-for-word repeat of today's)
            f"I don't know {tariff.utility}'s peak hours or time-of-use prices for {day} ({target:%a %d %b}): my plan catalog "
            f"holds {_catalog_owners()} plans. {_one_price(tariff)}, "
            f"${runs[0][3]:.2f} per kWh {tariff.name}, so no hour is cheaper in this answer; your bill or your utility's "
            "website lists your plan's peak hours; tell me them with both prices (for example \"25 cents on peak "
            "5-9pm weekdays, 11 off peak\") and I'll price with them."
        )
    elif day == "today":
        summary += f" Now ({_hm(now_local)}): {current.display} at ${current.usd_per_kwh:.2f}/kWh."
    for charge in tariff.fixed_charges:
        summary += f" Plus a fixed {charge.name} of ${charge.usd_per_month:.2f} a month ({charge.note or charge.source})."
    weekday = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"][target.weekday()]
    schedule = RateSchedule(
        utility_name=tariff.utility,
        schedule_name=tariff.name,
        periods=[
            RatePeriod(name=p, start_hour=s, end_hour=e, rate_kwh=r, days=[weekday]) for p, s, e, r in runs
        ],
        effective_date=tariff.as_of,
    )
    return Observation(
        tool=name,
        summary=summary,
        facts={"periods": [list(run) for run in runs], "rate_schedule": schedule.model_dump(mode="json")},
        source=tariff_source(lookup, tariff),
        as_of=tariff_as_of(tariff),
        is_mock=lookup.is_mock or data.is_mock,
        assumptions=[note for note in (zone_note,) if note],
        warnings=lookup.warnings,
    )


def _location(context: TurnContext) -> tuple[float, float] | None:
    location = context.profile.location
    if location is None or location.lat is None or location.lon is None:
        return None
    return location.lat, location.lon


def weather_forecast(
    data: DataSources, context: TurnContext, hours: int, day: str | None = None
) -> Observation:
    """The next `hours` (at most 48), or the whole of a named day ("saturday": the next one)."""
    name = "get_weather_forecast"
    where = _location(context)
    if where is None:
        return _failed(name, "I need your ZIP code or city for a forecast.", context)
    named = _normal_day(day) if day else None
    if day and named is None:
        return _failed(name, f"day must be today, tomorrow or a weekday, not {day!r}.", context)
    target = _day_ahead(context.now.date(), named) if named else None
    hours = max(1, min(hours, 48))
    try:
        weather, result = data.open_meteo.hourly_forecast(
            lat=where[0], lon=where[1], days=_forecast_days(context.now.date(), target)
        )
    except ApiError as exc:
        return _failed(
            name,
            "The weather forecast is unavailable right now; please try again later.",
            context,
            [exc.said],
        )
    now = context.now
    if target is not None:
        local_target = _day_ahead(now.astimezone(ZoneInfo(weather.timezone)).date(), named)
        indexes = [
            i
            for i, moment in enumerate(weather.times)
            if moment.date() == local_target and moment + timedelta(hours=1) > now
        ]
        if not indexes:
            return _failed(name, _beyond_forecast(weather, now, local_target), context)
    else:
        indexes = [i for i, moment in enumerate(weather.times) if moment + timedelta(hours=1) > now][:hours]
    if not indexes:
        return _failed(name, "The forecast does not cover the coming hours.", context)
    temps = [weather.temperature_c[i] for i in indexes]
    clouds = [weather.cloud_cover_pct[i] for i in indexes]
    sunniest = max(indexes, key=lambda i: weather.shortwave_w_m2[i])
    first = weather.times[indexes[0]]
    label = _day_label(first, now.astimezone(first.tzinfo))
    span = (
        f"Next {len(indexes)} h"
        if target is None
        else f"{label.capitalize()} ({first:%a %d %b})"
        if label in ("today", "tomorrow")
        else label
    )
    summary = (
        # in °F first, as US homeowners read a forecast (the API's °C beside it)
        f"{span}: {_fahrenheit(min(temps)):.0f}-{_fahrenheit(max(temps)):.0f} °F "
        f"({min(temps):.0f}-{max(temps):.0f} °C), average cloud cover {sum(clouds) / len(clouds):.0f}%"
        f"; sunniest hour {_hm(weather.times[sunniest])}"
        f"{'' if target is not None else ' ' + _day_label(weather.times[sunniest], first)}"
        f" ({weather.shortwave_w_m2[sunniest]:.0f} W/m²)."
    )
    forecast = [
        {
            # times are hour starts (radiation is the hour's mean); temperature and cloud cover are
            # readings at the hour's end, so they are dated there
            "time": (weather.times[i] + timedelta(hours=1)).isoformat(),
            "temp_c": weather.temperature_c[i],
            "cloud_pct": weather.cloud_cover_pct[i],
        }
        for i in indexes
    ]
    return Observation(
        tool=name,
        summary=summary,
        facts={
            "temp_min_c": min(temps),
            "temp_max_c": max(temps),
            "cloud_cover_avg_pct": round(sum(clouds) / len(clouds)),
            "weather_forecast": {
                "location": {"lat": where[0], "lon": where[1]},
                "current": forecast[0],
                "forecast": forecast,
                "solar_hours": float(sum(1 for i in indexes if weather.shortwave_w_m2[i] > 120)),
                "timestamp": result.fetched_at.isoformat(),
            },
        },
        source="Open-Meteo forecast API",
        as_of=result.fetched_at,
        is_mock=result.is_mock,
        warnings=["The forecast is an earlier cached copy (the service did not answer)."]
        if result.stale
        else [],
        credit=OPEN_METEO_CREDIT,
    )


def solar_forecast(
    data: DataSources, context: TurnContext, day: str, system_kw: float | None = None
) -> Observation:
    """`system_kw`: a size asked about for someone else's panels (not saved); otherwise their own."""
    name = "get_solar_forecast"
    equipment = context.profile.equipment
    where = _location(context)
    own = equipment.solar_capacity_kw if equipment is not None else None
    size = system_kw if system_kw is not None and 0 < system_kw <= 100 else own
    if not size:
        return _failed(name, "I need your solar system's size (kW) for a production forecast.", context)
    if where is None:
        return _failed(name, "I need your ZIP code or city for a solar forecast.", context)
    named = _normal_day(day)
    if named is None:
        return _failed(name, f"day must be today, tomorrow or a weekday, not {day!r}.", context)
    try:
        weather, result = data.open_meteo.hourly_forecast(
            lat=where[0],
            lon=where[1],
            days=_forecast_days(context.now.date(), _day_ahead(context.now.date(), named)),
        )
    except ApiError as exc:
        return _failed(
            name,
            "The solar forecast is unavailable right now; please try again later.",
            context,
            [exc.said],
        )
    zone = ZoneInfo(weather.timezone)
    today = context.now.astimezone(zone).date()
    target = _day_ahead(today, named)
    ahead = (target - today).days
    day = "today" if ahead == 0 else "tomorrow" if ahead == 1 else f"on {target:%a %d %b}"
    picked = [i for i, moment in enumerate(weather.times) if moment.date() == target]
    if not picked:
        return _failed(name, _beyond_forecast(weather, context.now, target), context)
    pv = pv_forecast(
        system_kw=size,
        times=[weather.times[i] for i in picked],
        tilted_irradiance_w_m2=[weather.tilted_w_m2[i] for i in picked],
        air_temperature_c=[weather.temperature_c[i] for i in picked],
    )
    total = sum(hour.ac_kw for hour in pv)
    best = max(pv, key=lambda hour: hour.ac_kw)
    windows = surplus_windows(pv)
    surplus = "; ".join(f"{_hm(a)}-{_hm(b)} ({kwh:.1f} kWh)" for a, b, kwh in windows) or "none"
    clouds = sum(weather.cloud_cover_pct[i] for i in picked if 8 <= weather.times[i].hour <= 17) / max(
        1, sum(1 for i in picked if 8 <= weather.times[i].hour <= 17)
    )
    return Observation(
        tool=name,
        summary=(
            f"{'Your' if size == own else 'A'} {size:g} kW system {day}: about {total:.1f} kWh, peak "
            f"{best.ac_kw:.1f} kW at {_hm(best.start)}; daytime cloud cover {clouds:.0f}%. Surplus over a 0.5 kW "
            f"household load: {surplus}."
        ),
        facts={
            "kwh": round(total, 2),
            "peak_kw": best.ac_kw,
            "surplus_windows": [[a.isoformat(), b.isoformat(), k] for a, b, k in windows],
        },
        source=(
            "Open-Meteo tilted irradiance (hourly means); PVWatts-style model: kWp x GTI/1000 x temperature"
            f" derate x {1 - SYSTEM_LOSSES:.2f} (DC) x {INVERTER_EFFICIENCY:.2f} inverter, capped at kWp/1.2"
        ),
        as_of=result.fetched_at,
        is_mock=result.is_mock,
        assumptions=[
            "panels tilted 20° facing south",
            f"{SYSTEM_LOSSES * 100:g} % system losses plus a {INVERTER_EFFICIENCY * 100:g} % efficient inverter"
            " (PVWatts defaults)",
            "household base load 0.5 kW",
        ],
        warnings=["The forecast is an earlier cached copy (the service did not answer)."]
        if result.stale
        else [],
        credit=OPEN_METEO_CREDIT,
    )


def _where(context: TurnContext) -> str:
    """ "in San Diego" for a town asked about (the profile view names it and has no ZIP), else "here"."""
    location = context.profile.location
    if location is not None and location.city and not location.zip_code:
        return f"in {location.city}"
    return "here"


def typical_solar(data: DataSources, context: TurnContext, system_kw: float | None = None) -> Observation:
    """`system_kw`: a size the user asked about (not saved); otherwise their own system's."""
    name = "get_typical_solar_production"
    equipment = context.profile.equipment
    own = equipment.solar_capacity_kw if equipment is not None else None
    size = system_kw if system_kw is not None and 0 < system_kw <= 100 else own
    where = _location(context)
    if not size or where is None:
        return _failed(
            name, "I need your solar system's size and your location for a typical-year estimate.", context
        )
    try:
        estimate, result = data.pvwatts.typical_production(system_kw=size, lat=where[0], lon=where[1])
    except ApiError as exc:
        return _failed(
            name, "The typical-year estimate (PVWatts) is unavailable right now.", context, [exc.said]
        )
    months = estimate.monthly_kwh
    low, high = months.index(min(months)), months.index(max(months))
    month_names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    return Observation(
        tool=name,
        summary=(
            f"{_a(f'{size:g}').capitalize()} kW system {_where(context)} makes about {estimate.ac_annual_kwh:,.0f} kWh in a typical "
            f"year, from {min(months):.0f} kWh in {month_names[low]} to {max(months):.0f} kWh in {month_names[high]}."
            + (" (The size you asked about, not saved to your profile.)" if size != own else "")
        ),
        facts={"solar_estimate": estimate.model_dump()},
        source="NREL PVWatts v8 (typical meteorological year)",
        as_of=result.fetched_at,
        is_mock=result.is_mock,
        assumptions=[
            "panels tilted 20° facing south",
            "14 % system losses plus a 96 % efficient inverter (PVWatts defaults)",
        ],
        warnings=["PVWatts answered from an earlier cached copy."] if result.stale else [],
    )


PANEL_W = 400  # a common rating for a home solar panel today, said as the assumption it is


def solar_size_needed(data: DataSources, context: TurnContext, kwh_per_month: float | None) -> Observation:
    """The size that makes their use in a typical year: PVWatts' output of 1 kW here, scaled. Without
    their use, what each kW makes here and what to tell us."""
    name = "get_typical_solar_production"
    where = _location(context)
    if where is None:
        return _failed(name, "I need your location to size a solar system.", context)
    try:
        estimate, result = data.pvwatts.typical_production(system_kw=1.0, lat=where[0], lon=where[1])
    except ApiError as exc:
        return _failed(
            name, "The typical-year estimate (PVWatts) is unavailable right now.", context, [exc.said]
        )
    per_kw = estimate.ac_annual_kwh
    each = f"Each kW of panels {_where(context)} makes about {per_kw:,.0f} kWh in a typical year."
    assumptions = [
        "panels tilted 20° facing south",
        "14 % system losses plus a 96 % efficient inverter (PVWatts defaults)",
    ]
    if not kwh_per_month or per_kw <= 0:
        summary = (
            f"{each} Tell me how many kWh you use a month (it's on your bill) and I'll work out the size "
            "that covers it."
        )
        facts: dict[str, Any] = {"kwh_per_kw_year": round(per_kw, 1)}
    else:
        size = round(kwh_per_month * 12 / per_kw, 1)
        panels = math.ceil(size * 1000 / PANEL_W)
        summary = (
            f"To make your {kwh_per_month:,.0f} kWh a month ({kwh_per_month * 12:,.0f} a year) you'd need about "
            f"{size:g} kW of panels, roughly {panels} panels of {PANEL_W} W. {each} Your roof's direction and "
            "shade, and what your utility pays for power you send back, can make a smaller system the better buy."
        )
        facts = {"kwh_per_kw_year": round(per_kw, 1), "size_kw": size, "panels": panels}
        assumptions.append(f"{PANEL_W} W a panel (a common rating today)")
        assumptions.append(f"your use as you said it: {kwh_per_month:,.0f} kWh a month")
    return Observation(
        tool=name,
        summary=summary,
        facts={"solar_size_needed": facts},
        source="NREL PVWatts v8 (typical meteorological year)",
        as_of=result.fetched_at,
        is_mock=result.is_mock,
        assumptions=assumptions,
        warnings=["PVWatts answered from an earlier cached copy."] if result.stale else [],
    )


# --- appliance verdicts (issue 11, item 5) ---------------------------------------------------


def _appliance_tool(data: DataSources) -> BaseTool:
    @_tool(return_direct=True)
    def appliance_advice(
        runtime: ToolRuntime[TurnContext, Any],
        appliance: str,
        ready_by_hour: int | None = None,
        ready_by_minute: int = 0,
        day: Literal["today", "tomorrow"] | None = None,
        start_hour: int | None = None,
        start_minute: int = 0,
        power_kw: float | None = None,
        hours: float | None = None,
    ) -> str:
        """Run a household appliance (dryer, dishwasher, washer, laundry, oven, pool pump) now or wait
        for cheaper hours: cost per load now vs then. Optionally done by ready_by_hour (local) on day;
        start_hour (local) when the user asks about starting it at a given time ("run it at 5pm?");
        power_kw and hours when the user gives them ("a 1500w space heater for 8 hrs": 1.5, 8)."""
        return advise_appliance(
            data,
            runtime.context,
            appliance,
            ready_by_hour,
            ready_by_minute,
            day,
            start_hour=start_hour,
            start_minute=start_minute,
            power_kw=power_kw,
            hours=hours,
        ).model_dump_json()

    return appliance_advice


def _energy_assumptions(row: Any, verdict: Any) -> list[str]:
    """The run's energy figure with the sources it comes from, then the verdict's other assumptions."""
    if row.key == STATED:
        return list(verdict.assumptions)  # their own figures: the basis says so, no page to cite
    cited = "; ".join(
        f"{source.title}, {source.url} ({source.date_kind.replace('_', ' ')} {source.date:%Y-%m-%d})"
        for source in row.sources
        if source.figure != "duration"
    )
    return [f"{verdict.assumptions[0]} — source: {cited}", *verdict.assumptions[1:]]


def _appliance_at(
    row: Any,
    tariff: Tariff,
    now_local: datetime,
    zone_name: str,
    start_hour: int,
    start_minute: int,
    day: str | None,
    assumptions: list[str],
    common: dict[str, Any],
) -> Observation:
    """ "is it dumb to run the dishwasher at 5pm": a run started then, against the cheapest start in
    the next 24 hours (the same verdict as "now or later", so night hours stay out of it)."""
    zone = ZoneInfo(zone_name)
    target = now_local.date() + timedelta(days=1 if day == "tomorrow" else 0)
    proposed = _local(target, start_hour, start_minute, zone)
    if proposed.timestamp() < now_local.timestamp() - 60:
        proposed = _local(target + timedelta(days=1), start_hour, start_minute, zone)
    verdict = appliance_verdict(row, tariff, now_local, zone_name)
    span_h = (proposed.timestamp() - now_local.timestamp()) / 3600 + verdict.duration_h
    prices = hourly_prices(tariff, now_local, int(span_h) + 2, zone_name)
    cost_at, periods = run_cost(prices, proposed, row.run_phases)
    best_cost, best_start = verdict.cost_then_usd, verdict.best_start  # the cheapest allowed start
    at, unit, label = _when(proposed, now_local), row.run_label, "/".join(periods)
    best = f"{_when(best_start, now_local)}, about ${best_cost:.2f} ({'/'.join(verdict.periods_then)})"
    difference = round(cost_at - best_cost, 2)
    if verdict.flat or difference < 0.01:
        summary = (
            f"{at} is fine — your {row.name} costs about ${cost_at:.2f} for {unit} then ({label}), "
            "as cheap as any start in the next 24 hours."
        )
    elif difference < MIN_SAVING_USD or difference < MIN_SAVING_SHARE * cost_at:
        summary = (
            f"{at} is fine — your {row.name} costs about ${cost_at:.2f} for {unit} then ({label}); the cheapest "
            f"start in the next 24 hours, {best}, is only ${difference:.2f} less."
        )
    else:
        summary = (
            f"Started at {at} your {row.name} costs about ${cost_at:.2f} for {unit} ({label}); the cheapest start in "
            f"the next 24 hours is {best}, ${difference:.2f} less."
        )
    assumptions.extend(_energy_assumptions(row, verdict))
    return Observation(
        tool="appliance_advice",
        summary=summary,
        facts={
            "appliance": row.name,
            "known": True,
            "proposed_start": proposed.isoformat(),
            "cost_at_proposed_usd": round(cost_at, 2),
            "periods_at_proposed": periods,
            "best_start": best_start.isoformat(),
            "best_cost_usd": round(best_cost, 2),
            "difference_usd": difference,
            "kwh_per_run": verdict.kwh,
            "duration_h": verdict.duration_h,
            "tariff": f"{tariff.utility} {tariff.name}",
        },
        assumptions=assumptions,
        **common,
        comparable=True,  # the same load, at either start
    )


def _when(moment: datetime, now_local: datetime) -> str:
    """'21:00' today, '06:00 tomorrow' or '06:00 Fri 23 Jan'."""
    label = _day_label(moment, now_local)
    return _hm(moment) if label == "today" else f"{_hm(moment)} {label}"


def _local(day: date, hour: int, minute: int, zone: ZoneInfo) -> datetime:
    """A wall-clock time on a date (a time that does not exist on a spring-forward night moves on)."""
    return (
        datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
        .astimezone(timezone.utc)
        .astimezone(zone)
    )


_NIGHT_REASON = {
    "dryer": "fire-safety guidance (NFPA) is to turn a dryer off when you go to bed or leave home",
    "laundry": "fire-safety guidance (NFPA) is to turn a dryer off when you go to bed or leave home",
}


def advise_appliance(
    data: DataSources,
    context: TurnContext,
    appliance: str,
    ready_by_hour: int | None = None,
    ready_by_minute: int = 0,
    day: str | None = None,
    *,
    start_hour: int | None = None,
    start_minute: int = 0,
    power_kw: float | None = None,
    hours: float | None = None,
) -> Observation:
    name = "appliance_advice"
    if power_kw is not None and not 0 < power_kw <= 50:
        return _failed(name, "power_kw must be more than 0 and at most 50.", context)
    if hours is not None and not 0 < hours <= 24:
        return _failed(name, "hours must be more than 0 and at most 24.", context)
    if ready_by_hour is not None and not (0 <= ready_by_hour <= 23 and 0 <= ready_by_minute <= 59):
        return _failed(name, "ready_by_hour must be 0-23 and minutes 0-59.", context)
    if start_hour is not None and not (0 <= start_hour <= 23 and 0 <= start_minute <= 59):
        return _failed(name, "start_hour must be 0-23 and start_minute 0-59.", context)
    said = " ".join(str(appliance or "").split())[:40] or "that appliance"
    lookup = data.resolve_tariff(
        context.profile, one_price=context.one_price_plan, described=context.described_plan
    )
    if lookup.tariff is None:
        return _failed(
            name, f"I can't price running your {said} without your rate plan.", context, lookup.warnings
        )
    tariff = lookup.tariff
    zone_name, zone_note = local_timezone(context.profile)
    zone = ZoneInfo(zone_name)
    now_local = context.now.astimezone(zone)
    assumptions = [note for note in (zone_note,) if note]
    common = {
        "source": tariff_source(lookup, tariff),
        "as_of": tariff_as_of(tariff),
        "is_mock": lookup.is_mock or data.is_mock,
        "warnings": list(lookup.warnings),
    }
    row = (
        stated_appliance(said, power_kw, hours, now_local.date())
        if power_kw is not None
        else run_for(appliance_for(appliance), hours)
    )
    if row is None:
        prices = hourly_prices(tariff, now_local, 24, zone_name)
        current = prices[0]
        one_price = len({slot.usd_per_kwh for slot in prices}) <= 1
        if one_price and tariff.illustrative:
            offer = (
                f"the average price I assumed is {current.usd_per_kwh * 100:.1f}¢/kWh, and {_HOURS_UNKNOWN}"
            )
        elif one_price:
            offer = f"{_one_price(tariff, lower=True)} (${current.usd_per_kwh:.2f}/kWh), so it doesn't matter when it runs."
        else:
            runs = cheapest_windows(prices)
            windows = ", ".join(
                f"{_hm(a)}-{_hm(b)} {_day_label(a, now_local)}".replace(" today", "") for a, b, _, _ in runs
            )
            offer = (
                f"the cheapest hours in the next 24 h are {windows} ({runs[0][2]}, ${runs[0][3]:.2f}/kWh); now "
                f"({_hm(now_local)}) is {current.label or current.period.replace('_', '-')} at "
                f"${current.usd_per_kwh:.2f}/kWh."
            )
        return Observation(
            tool=name,
            summary=(
                f"I don't have a sourced typical energy figure for {_a(said)}, so I can't price a run of it; "
                f"{offer}"
            ),
            facts={"appliance": said, "known": False, "known_appliances": sorted(APPLIANCES)},
            assumptions=assumptions,
            **common,
        )
    if start_hour is not None:
        return _appliance_at(
            row, tariff, now_local, zone_name, start_hour, start_minute, day, assumptions, common
        )
    deadline = earliest = None
    if ready_by_hour is not None:
        target = now_local.date() + timedelta(days=1 if day == "tomorrow" else 0)
        deadline = _local(target, ready_by_hour, ready_by_minute, zone)
        if deadline.timestamp() <= now_local.timestamp():
            deadline = _local(target + timedelta(days=1), ready_by_hour, ready_by_minute, zone)
    elif day == "tomorrow":  # "when's the best time to run the dryer tomorrow?": any time tomorrow
        tomorrow = now_local.date() + timedelta(days=1)
        earliest = _local(tomorrow, 0, 0, zone)
        deadline = _local(tomorrow + timedelta(days=1), 0, 0, zone)
    verdict = appliance_verdict(row, tariff, now_local, zone_name, deadline=deadline, earliest=earliest)
    unit = row.run_label
    now_periods = "/".join(verdict.periods_now)
    then_periods = "/".join(verdict.periods_then)
    by = _when(verdict.deadline, now_local)
    if verdict.flat:
        # one price all day: no start is cheaper, so none is named (a 00:00 "cheapest start" then
        # "I left out the night hours" said nothing true)
        window = " tomorrow" if earliest is not None else f" before {by}" if ready_by_hour is not None else ""
        # (tomorrow's one price is tomorrow's, not now's: a weekday peak now, a weekend all off-peak)
        cost = verdict.cost_then_usd if earliest is not None else verdict.cost_now_usd
        price = cost / verdict.kwh if earliest is not None and verdict.kwh else verdict.usd_per_kwh_now
        summary = (
            f"Run it whenever suits you — every hour{window} costs the same (${price:.2f}/kWh), "
            f"so your {row.name} costs about ${cost:.2f} for {unit} at any time."
        )
        if tariff.illustrative:  # an average we assumed: their plan's cheap hours are unknown, not absent
            summary = (
                f"At the average price I assumed ({verdict.usd_per_kwh_now * 100:.1f}¢/kWh), your {row.name} costs about "
                f"${verdict.cost_now_usd:.2f} for {unit}; {_HOURS_UNKNOWN}"
            )
        if row.attended:
            summary += " Run it while someone is awake and home to keep an eye on it."
    elif verdict.verdict == "wait" and verdict.saving_usd < 0.01:
        # asked about a later day: its cheapest start, said without a "saving" it does not have
        summary = (
            f"The cheapest start then is {_when(verdict.start, now_local)}: your {row.name} costs about "
            f"${verdict.cost_then_usd:.2f} for {unit} ({then_periods}); right now it would cost "
            f"${verdict.cost_now_usd:.2f} ({now_periods})."
        )
    elif verdict.verdict == "wait":
        saving = f", saving ${verdict.saving_usd:.2f}" if verdict.saving_usd >= 0.01 else ""
        summary = (
            f"Wait until {_when(verdict.start, now_local)} — your {row.name} costs about ${verdict.cost_then_usd:.2f} "
            f"for {unit} then ({then_periods}) instead of ${verdict.cost_now_usd:.2f} now ({now_periods}){saving}."
        )
        if ready_by_hour is not None:
            summary += f" Started then, it is done by {_when(verdict.end, now_local)}, before {by}."
        if verdict.flat:
            summary = (
                f"Any time from {_when(verdict.start, now_local)} suits — every hour then costs the same, so your "
                f"{row.name} costs about ${verdict.cost_then_usd:.2f} for {unit}."
            )
    elif not verdict.fits_deadline:
        summary = (
            f"Run it now — your {row.name} takes about {verdict.duration_h:g} h, so even started now it finishes at "
            f"{_when(verdict.end, now_local)}, after {by}; it costs about ${verdict.cost_now_usd:.2f} for {unit} "
            f"now ({now_periods})."
        )
    elif verdict.saving_usd < 0.01 or verdict.best_start == verdict.now:
        summary = (
            f"Run it now — your {row.name} costs about ${verdict.cost_now_usd:.2f} for {unit} now ({now_periods}), "
            f"already the cheapest time before {by}."
        )
    else:
        summary = (
            f"Run it now — your {row.name} costs about ${verdict.cost_now_usd:.2f} for {unit} now ({now_periods}); "
            f"the cheapest start before {by}, {_when(verdict.best_start, now_local)} ({then_periods}), would save "
            f"only ${verdict.saving_usd:.2f} (I suggest waiting for ${MIN_SAVING_USD:.2f} and "
            f"{MIN_SAVING_SHARE:.0%} or more)."
        )
    if verdict.skipped_start is not None and not verdict.flat:
        reason = _NIGHT_REASON.get(row.key, "that's while people are normally asleep")
        cost = (
            "costs the same"
            if verdict.skipped_cost_usd >= verdict.cost_then_usd - 0.005
            else f"would cost ${verdict.skipped_cost_usd:.2f}"
        )
        summary += f" Starting at {_when(verdict.skipped_start, now_local)} {cost}, but I left out the night hours: {reason}."
    for note in verdict.notes if not verdict.flat else []:
        summary += f" Note: {note}."
    if row.key == STATED and verdict.duration_h >= 24:
        # "my mining rig runs 24/7 at 1.2 kw, whats that costing me monthly": a load that never
        # stops has no cheaper start; what it costs is a month of days
        summary += (
            f" Running all day every day, that is about ${verdict.cost_now_usd * DAYS_PER_MONTH:.0f} a month "
            f"({DAYS_PER_MONTH:g} days of {verdict.kwh:.1f} kWh): no start time changes that, only running it fewer hours."
        )
    assumptions.extend(_energy_assumptions(row, verdict))
    if row.caveat:
        assumptions.append(row.caveat)
    return Observation(
        tool=name,
        summary=summary,
        facts={
            "appliance": row.name,
            "known": True,
            "verdict": verdict.verdict,
            "start": verdict.start.isoformat(),
            "deadline": verdict.deadline.isoformat(),
            "cost_now_usd": round(verdict.cost_now_usd, 2),
            "cost_then_usd": round(verdict.cost_then_usd, 2),
            "saving_usd": round(verdict.saving_usd, 2),
            "periods_now": verdict.periods_now,
            "periods_then": verdict.periods_then,
            "kwh_per_run": verdict.kwh,
            "duration_h": verdict.duration_h,
            "energy_sources": [source.url for source in row.sources],
            "tariff": f"{tariff.utility} {tariff.name}",
        },
        assumptions=assumptions,
        **common,
        comparable=True,  # the same load, now or later
    )
