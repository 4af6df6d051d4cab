"""The data sources behind the tools, built once per process: API clients, tariff and
location resolution. Tools receive this object; tests build it over local servers."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from advisor.energy.catalog import (
    catalog_caveats,
    catalog_price_basis,
    catalog_tariff,
    normalize_plan,
    normalize_utility,
    plans_of,
    utility_of_plan,
)
from advisor.energy.described_plan import DescribedPlan
from advisor.energy.ev import DEFAULT_LEVEL2_CHARGER_KW, charging_power_kw
from advisor.energy.state_prices import (
    STATE_PRICES_SOURCE,
    STATE_PRICES_URL,
    STATE_PRICES_YEAR,
    state_price_usd_per_kwh,
)
from advisor.energy.tariff import TIERED_NOTE_PREFIX, Tariff, flat_tariff
from advisor.energy.utilities import utility_named
from advisor.energy.vehicles import vehicle_spec
from advisor.places import STATE_TIMEZONES, find_city, find_town, zip_state
from advisor.tools.http import ApiClient, ApiError, TurnBudget, data_budget
from advisor.tools.open_meteo import OpenMeteoClient
from advisor.tools.openei import NoMatch, OpenEiClient, TariffMatch
from advisor.tools.pvwatts import PvWattsClient
from config.clock import Clock, utc_now
from config.files import DataLimitsConfig, ToolsConfig
from config.redact import register_secrets
from config.settings import Settings
from profiles.models import UserProfile

FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"
PVWATTS_DEMO_KEY = "DEMO_KEY"
# Every utility in the catalog is in California.
_UTILITY_TIMEZONES = {"PG&E": "America/Los_Angeles", "SDG&E": "America/Los_Angeles"}


class TariffLookup(BaseModel):
    model_config = ConfigDict(frozen=True)

    tariff: Tariff | None
    origin: str  # "openei", "catalog" or "none"
    warnings: list[str] = Field(default_factory=list)
    is_mock: bool = False


def home_charging_power(equipment: Any, assumptions: list[str]) -> float:
    """The kW the car draws at home: the profile's charger (else a typical Level 2, said) capped by
    the car's on-board charger."""
    charger_kw = equipment.ev_charger_kw if equipment and equipment.ev_charger_kw else None
    if charger_kw is None:
        charger_kw = DEFAULT_LEVEL2_CHARGER_KW
        assumptions.append(f"Level 2 charger of {charger_kw:g} kW (not in your profile)")
    spec = vehicle_spec(
        equipment.ev_model if equipment else None, equipment.ev_battery_kwh if equipment else None
    )
    power = charging_power_kw(charger_kw, spec.onboard_charger_kw if spec else None)  # the car's limit too
    if spec and power < charger_kw:
        assumptions.append(f"the {spec.name} accepts at most {spec.onboard_charger_kw:g} kW AC")
    return power


def tariff_source(lookup: TariffLookup, tariff: Tariff) -> str:
    """Where a tariff's prices come from, as the answer cites it."""
    origins = {
        "openei": "OpenEI Utility Rate Database",
        "flat": "one flat price",
        "described": "as you described it",
    }
    origin = origins.get(lookup.origin, "built-in tariff catalog")
    return f"{tariff.utility} {tariff.name} ({origin}: {tariff.source})"


def tariff_as_of(tariff: Tariff) -> datetime:
    return datetime(tariff.as_of.year, tariff.as_of.month, tariff.as_of.day, tzinfo=timezone.utc)


class DataSources:
    def __init__(
        self,
        *,
        open_meteo: OpenMeteoClient,
        pvwatts: PvWattsClient,
        openei: OpenEiClient | None,
        mode: str,
        clock: Clock = utc_now,
        limits: DataLimitsConfig | None = None,
    ) -> None:
        self.open_meteo = open_meteo
        self.pvwatts = pvwatts
        self.openei = openei  # None: no key in live mode, so the catalog is used directly
        self.mode = mode
        self.clock = clock
        self.limits = limits or DataLimitsConfig()

    def turn(self) -> AbstractContextManager[TurnBudget]:
        """`with data.turn():` every data call inside shares one turn's time budget. (Calls made
        while a turn's trace is recording share one without this: see `advisor/tools/http.py`.)"""
        return data_budget(self.limits.turn_budget_seconds)

    @property
    def is_mock(self) -> bool:
        return self.mode == "mock"

    def _utility_tariff(self, profile: UserProfile) -> tuple[TariffLookup | None, list[str]]:
        """No plan named: with OpenEI, the utility's standard residential tariff at the user's place.
        None when OpenEI lists none there, or failed (then with a warning saying so)."""
        location = profile.location
        if self.openei is None or location is None or not location.utility_provider:
            return None, []
        if location.lat is None or location.lon is None:
            return None, []
        try:
            match, result = self.openei.match_tariff(
                plan=None,
                lat=location.lat,
                lon=location.lon,
                utility=location.utility_provider,
                now=self.clock(),
            )
        except NoMatch:
            return None, []
        except ApiError as exc:
            return None, [
                f"The OpenEI tariff lookup failed ({exc.reason}), so I couldn't look up your utility's tariff."
            ]
        tariff = match.tariff
        warning = (
            f"You didn't name your rate plan, so I used {tariff.utility}'s {tariff.name} from the OpenEI Utility "
            "Rate Database; tell me your plan if it's a different one."
        )
        lookup = TariffLookup(
            tariff=tariff, origin="openei", warnings=[warning, *_tier_notes(tariff)], is_mock=result.is_mock
        )
        return lookup, []

    def _flat_tariff(
        self,
        profile: UserProfile,
        warnings: list[str],
        plan_without_prices: str | None = None,
        *,
        one_price: bool = False,
    ) -> TariffLookup:
        """No time-of-use tariff to price: one flat price — the user's, else their state's average —
        always said as such; with neither, no prices at all. A plan they named whose prices we do
        not have is said as that ("I don't have TOU-DR1's prices"), never as "without your plan"."""
        found = flat_price(profile)
        location = profile.location
        utility = (location.utility_provider if location else None) or "your utility"
        missing = (
            f"I don't have the prices of {plan_without_prices} ({utility}'s plan) in my tariff catalog"
            if plan_without_prices
            else None
        )
        if found is None:
            return TariffLookup(
                tariff=None,
                origin="none",
                warnings=[
                    *warnings,
                    f"{missing}; tell me what you pay per kWh and I'll price this."
                    if missing
                    else "I don't have your rate plan or what you pay per kWh; tell me either and I'll price this.",
                ],
            )
        price, name, source, illustrative = found
        if illustrative and one_price and not missing:
            # "the standard one, not the hourly thing": no hour is cheaper on their plan; only the
            # price level is assumed
            state = name.split(" average")[0].removeprefix("at the ")
            warnings = [
                *warnings,
                f"You said your plan is the standard one, with one price all day, so no hour is cheaper. I used "
                f"{state}'s 2023 average residential price, {price * 100:.1f}¢/kWh ({STATE_PRICES_SOURCE}), for "
                "its level: tell me what you pay per kWh for your exact cost.",
            ]
            illustrative = False
        elif illustrative:
            average = (
                f"{name.split(' average')[0].removeprefix('at the ')}'s 2023 average residential price, "
                f"{price * 100:.1f}¢/kWh ({STATE_PRICES_SOURCE}), as one flat price"
            )
            warnings = [
                *warnings,
                f"{missing}, so I used {average}: its peak hours cost more than this and its off-peak hours "
                "less. Tell me what you pay per kWh, or the plan's peak hours and both prices from your bill."
                if missing
                else f"Without your rate plan I used {average}: on a time-of-use plan some hours are cheaper. "
                "Tell me your plan or what you pay per kWh.",
            ]
        else:
            warnings = [
                *warnings,
                f"Priced at the flat {price * 100:.1f}¢/kWh you gave me (no hour is cheaper).",
            ]
        tariff = flat_tariff(
            price,
            utility=utility,
            name=name,
            source=source,
            as_of=date(STATE_PRICES_YEAR, 12, 31),
            illustrative=illustrative,
        )
        return TariffLookup(tariff=tariff, origin="flat", warnings=warnings, is_mock=False)

    def resolve_tariff(
        self, profile: UserProfile, *, one_price: bool = False, described: DescribedPlan | None = None
    ) -> TariffLookup:
        """The user's tariff: live from OpenEI when possible, else the dated catalog.
        A plan that belongs to another utility is reported, never silently re-priced.
        `one_price`: they said their plan has one price all day, so a state average is its level.
        `described`: their plan as they described it (prices and peak hours): what they pay, first."""
        location = profile.location
        if described is not None:
            utility = location.utility_provider if location else None
            return TariffLookup(
                tariff=described.tariff(utility, as_of=self.clock().date()),
                origin="described",
                warnings=[
                    f"Prices and hours are your plan's as you described them ({described.said()}); fixed "
                    "monthly charges and other line items on your bill are not included."
                ],
            )
        if location is None or not location.rate_schedule:
            by_utility, failures = self._utility_tariff(profile)
            if by_utility is not None:
                return by_utility
            return self._flat_tariff(profile, failures, one_price=one_price)
        named_utility = location.utility_provider or ""
        utility = normalize_utility(named_utility) if named_utility else None
        plan = normalize_plan(location.rate_schedule) or location.rate_schedule
        owner = utility_of_plan(plan)
        warnings: list[str] = []
        if owner and utility and owner != utility:
            alternatives = ", ".join(plans_of(utility)) or "its own plans"
            warnings.append(
                f"Your profile says {named_utility} with rate plan {plan}, but {plan} is {_article(owner)} {owner} plan "
                f"({utility}'s time-of-use plans are {alternatives}). I used {plan}'s schedule as your profile "
                "names it; tell me your actual plan and I'll correct it."
            )
        if self.openei is not None and location.lat is not None and location.lon is not None:
            try:
                match, result = self.openei.match_tariff(
                    plan=plan,
                    lat=location.lat,
                    lon=location.lon,
                    utility=named_utility or None,
                    now=self.clock(),
                )
                return TariffLookup(
                    tariff=match.tariff,
                    origin="openei",
                    warnings=[*warnings, *openei_warnings(match)],
                    is_mock=result.is_mock,
                )
            except ApiError as exc:
                warnings.append(
                    f"The OpenEI tariff lookup failed ({exc.reason}); using the built-in tariff catalog."
                )
        tariff = catalog_tariff(owner or utility or "", plan)
        if tariff is None:
            return self._flat_tariff(profile, warnings, plan_without_prices=location.rate_schedule)
        basis = catalog_price_basis(tariff.utility, tariff.name)
        warnings.append(
            f"Prices are illustrative figures from the built-in catalog ({basis}; time periods as published, "
            f"effective {tariff.effective or tariff.as_of:%Y-%m-%d}), not your utility's current tariff sheet."
        )
        warnings.extend(catalog_caveats(tariff.utility, tariff.name))
        return TariffLookup(tariff=tariff, origin="catalog", warnings=warnings, is_mock=self.is_mock)


def openei_warnings(match: TariffMatch) -> list[str]:
    """What an answer priced from an OpenEI match must say: a plan that is a guess (another code,
    or one of several tariffs that fit, used provisionally — the user is asked which is theirs),
    a variant OpenEI does not list, and which usage tier the prices are."""
    said = match.requested or "your plan"
    warnings: list[str] = []
    if match.ambiguous:
        where = f" for {match.utility}" if match.utility and not match.several_utilities else ""
        warnings.append(
            f"I found {_and(match.candidates)}{where} near you; which is on your bill? "
            f"I used {match.candidates[0]} for now."
        )
    elif not match.exact:
        warnings.append(
            f"OpenEI lists no plan named exactly {said} near you; I used {match.code}, the only one named like it. "
            "Tell me if your bill says otherwise."
        )
    return [*warnings, *match.notes, *_tier_notes(match.tariff)]


def _tier_notes(tariff: Tariff) -> list[str]:
    return [note for note in tariff.notes if note.startswith(TIERED_NOTE_PREFIX)]


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def flat_price(profile: UserProfile) -> tuple[float, str, str, bool] | None:
    """(price, plan name, source, illustrative) of the best flat price we have, or None."""
    location = profile.location
    if location is not None and location.flat_rate_usd_per_kwh:
        return location.flat_rate_usd_per_kwh, "at the flat price you gave", "your own figure", False
    state = None
    if location is not None and location.zip_code:
        state = zip_state(location.zip_code)
    if state is None and location is not None and location.city:
        place = find_city(location.city) or find_town(location.city)  # "Asheville": any US town
        state = place.state if place else None
    if state is None and location is not None:
        state = utility_state(location.utility_provider)  # "rather not say where i live", "fpl"
    price = state_price_usd_per_kwh(state)
    if price is None:
        return None
    return price, f"at the {state} average price ({STATE_PRICES_YEAR})", STATE_PRICES_URL, True


def local_timezone(profile: UserProfile) -> tuple[str, str | None]:
    """The user's IANA timezone, and the assumption made when the profile lacks one."""
    location = profile.location
    if location is not None and location.timezone:
        return location.timezone, None
    utility = normalize_utility(location.utility_provider) if location and location.utility_provider else None
    if utility in _UTILITY_TIMEZONES:
        zone = _UTILITY_TIMEZONES[utility]
        return zone, f"local time taken as {zone} ({utility}'s service area)"
    state = utility_state(location.utility_provider if location else None)
    if state is not None:
        zone = STATE_TIMEZONES[state]
        return zone, f"local time taken as {zone} ({location.utility_provider}'s state, {state})"  # type: ignore[union-attr]
    return "America/Los_Angeles", "local time assumed to be America/Los_Angeles (no timezone in your profile)"


def utility_state(name: str | None) -> str | None:
    """The one state a utility serves (FPL: FL), when the profile has no place: its average price
    and its time zone are that state's."""
    utility = utility_named(name) if name else None
    if utility is None or len(utility.states) != 1 or utility.states[0] not in STATE_TIMEZONES:
        return None
    return utility.states[0]


def build_data_sources(
    settings: Settings, tools: ToolsConfig, http: httpx.Client, *, clock: Clock = utc_now
) -> DataSources:
    providers = tools.providers
    # Every configured secret is redacted from API error reasons (and so from replies, sessions
    # and traces), whichever API echoes it back.
    register_secrets(
        getattr(settings, name, None)
        for name in ("nrel_api_key", "openei_api_key", "slack_bot_token", "slack_app_token")
    )

    def client(name: str, key_default: str | None = None) -> ApiClient:
        config = getattr(providers, name)
        key = settings.api_key(config.api_key_env) if config.api_key_env else None
        if key is None and key_default is not None:
            key = SecretStr(key_default)
        return ApiClient(
            name=name,
            config=config,
            mode=tools.mode,
            http=http,
            fixtures_dir=FIXTURES_DIR,
            api_key=key,
            clock=clock,
            limits=tools.limits,
        )

    openei_key_missing = tools.mode == "live" and settings.openei_api_key is None
    return DataSources(
        open_meteo=OpenMeteoClient(client("open_meteo"), client("open_meteo_geocoding")),
        pvwatts=PvWattsClient(client("pvwatts", key_default=PVWATTS_DEMO_KEY)),
        openei=None if openei_key_missing else OpenEiClient(client("openei")),
        mode=tools.mode,
        clock=clock,
        limits=tools.limits,
    )


def _article(acronym: str) -> str:
    """'an SDG&E plan', 'a PG&E plan': the article follows how the first letter is spoken."""
    return "an" if acronym[:1].upper() in "AEFHILMNORSX" else "a"
