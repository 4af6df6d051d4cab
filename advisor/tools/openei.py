"""OpenEI Utility Rate Database: the tariff a user's plan name refers to, near their location.

`OpenEiClient.match_tariff` keeps only what can be trusted and says what it could not decide:

1. Items are matched on the plan CODE (and the utility's own plan names), never by substring:
   "E-TOU-C" is not "E-TOU-C3" (see `advisor/tools/urdb_match.py`). CARE, FERA, medical
   baseline, net-metering and solar variants are used only when the user's words ask for them.
2. Only tariffs in effect at `now` count: `startdate` <= now < `enddate` (Unix seconds; no
   `enddate`: still in effect). Of the versions of one tariff, the newest `startdate` wins.
3. When different tariffs still match (two plans of a family, or the same code at two
   utilities near the location), nothing is picked silently: the match is `ambiguous`, lists
   the `candidates`, and carries a provisional choice the answer must call provisional.
4. Items that cannot be used (a malformed date, missing or misshapen schedules) are skipped;
   when nothing usable remains, `ApiError` says why (the caller then uses its catalog).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from advisor.energy.holidays import CALENDARS
from advisor.energy.tariff import Tariff, TariffError, tariff_from_urdb
from advisor.energy.utilities import find_utility, utility_named
from advisor.tools.http import ApiClient, ApiError, ApiResult, shape_check
from advisor.tools.models import OpenEiAnswer
from advisor.tools.urdb_match import match_code, plan_words, squash, variants_in

URDB_VIEW_URL = "https://apps.openei.org/USURDB/rate/view/"


class NoMatch(ApiError):
    """OpenEI answered, but no tariff it lists fits (not an outage: nothing to retry or report)."""


class TariffMatch(BaseModel):
    """The tariff OpenEI gives for a plan, and whether it was the only one that fitted."""

    model_config = ConfigDict(frozen=True)

    tariff: Tariff  # the match; when `ambiguous`, a provisional choice (the first candidate)
    requested: str | None = None  # the user's words for the plan (None: no plan named)
    code: str | None = None  # the plan code matched, as the utility writes it ("EV2-A")
    exact: bool = True  # False: no plan has the user's code; `code` continues it ("E-TOU" -> E-TOU-C)
    candidates: list[str] = Field(default_factory=list)  # every distinct tariff that matched, chosen first
    ambiguous: bool = False  # more than one candidate: the user must say which is theirs
    utility: str | None = None  # the chosen tariff's utility, as the utility table names it
    several_utilities: bool = False  # the candidates belong to more than one utility
    notes: list[str] = Field(default_factory=list)  # what the answer must say (a missing variant)


@dataclass(frozen=True)
class _Item:
    raw: dict[str, Any]
    name: str
    utility: str  # the utility table's name when known, else OpenEI's
    start: int
    end: int | None
    code: str | None = None
    exact: bool = True


class OpenEiClient:
    def __init__(self, api: ApiClient) -> None:
        self._api = api

    def find_tariff(
        self,
        *,
        plan: str | None,
        lat: float,
        lon: float,
        utility: str | None = None,
        now: datetime | None = None,
    ) -> tuple[Tariff, ApiResult]:
        """The one tariff `match_tariff` finds; several different ones are an `ApiError` naming
        them (a caller that can ask the user should call `match_tariff`)."""
        match, result = self.match_tariff(plan=plan, lat=lat, lon=lon, utility=utility, now=now)
        if match.ambiguous:
            raise NoMatch(
                "openei", f"several tariffs are named like {plan} here: {', '.join(match.candidates)}"
            )
        return match.tariff, result

    def match_tariff(
        self,
        *,
        plan: str | None,
        lat: float,
        lon: float,
        utility: str | None = None,
        now: datetime | None = None,
    ) -> tuple[TariffMatch, ApiResult]:
        """Approved residential tariffs near the location, in effect at `now` (default: when the
        answer was fetched, by the API client's clock): those whose code is `plan`'s; without a
        plan, the utility's own residential tariff there (its default plan, else a standard one,
        before optional ones). `utility` is the user's utility: with a plan, it narrows
        candidates from several utilities to theirs."""
        result = self._api.get_json(
            "",
            {
                "version": "latest",
                "format": "json",
                "detail": "full",
                "sector": "Residential",
                "approved": "true",
                "lat": round(lat, 3),
                "lon": round(lon, 3),
            },
            fixture="openei_rates",
            validate=_check_answer,
        )
        items = OpenEiAnswer.model_validate(result.data).items  # checked before caching
        moment = now or result.fetched_at
        ours = _utility_name(utility) if utility else None
        listed = [item for item in items if isinstance(item, dict) and isinstance(item.get("name"), str)]
        if plan:
            words = plan_words(plan, ours)
            named = _named_like(listed, words.code)
            what = f"named like {plan}"
        else:
            words = None
            named = [
                _Item(item, item["name"], _utility_name(str(item.get("utility", ""))), 0, None)
                for item in listed
            ]
            named = [item for item in named if _same_utility(utility, str(item.raw.get("utility", "")))]
            what = f"of {utility or 'your utility'}"
        if not named:
            raise NoMatch("openei", f"no residential tariff {what} near this location")
        current = _in_effect(named, moment, what)
        asked = words.variants if words else frozenset()
        kept, notes = _variants_asked(current, asked, what)
        priced = _priced(kept, what)
        if words is None:
            return _utility_default(priced, ours or utility), result
        return _choose(priced, words.said, utility, notes), result


_check_shape = shape_check(OpenEiAnswer, "openei")


def _check_answer(data: Any) -> None:
    """OpenEI's own error object first (it says what was wrong, keys redacted), then the shape."""
    if isinstance(data, dict) and data.get("error") and "items" not in data:
        error = data["error"]
        message = error.get("message") or error.get("code") if isinstance(error, dict) else error
        raise ApiError("openei", f"answered with an error: {str(message)[:200]}")
    _check_shape(data)


def _named_like(items: list[dict[str, Any]], code: str) -> list[_Item]:
    """Items whose name carries the code exactly; failing that, the code's family members."""
    found: list[_Item] = []
    for item in items:
        utility = _utility_name(str(item.get("utility", "")))
        match = match_code(code, item["name"], utility)
        if match is not None:
            found.append(_Item(item, item["name"], utility, 0, None, match.code, match.exact))
    exact = [item for item in found if item.exact]
    return exact or found


def _in_effect(items: list[_Item], moment: datetime, what: str) -> list[_Item]:
    """Items with a readable start date at or before `moment` and no end date, or one after it."""
    now = moment.timestamp()
    dated, expired, future, malformed = [], 0, 0, 0
    for item in items:
        start = _unix(item.raw.get("startdate"))
        end = _unix(item.raw.get("enddate")) if item.raw.get("enddate") is not None else None
        if start is None or (item.raw.get("enddate") is not None and (end is None or end <= start)):
            malformed += 1
        elif start > now:
            future += 1
        elif end is not None and end <= now:
            expired += 1
        else:
            dated.append(_Item(item.raw, item.name, item.utility, start, end, item.code, item.exact))
    if not dated:
        found = ", ".join(
            f"{count} {kind}"
            for count, kind in (
                (expired, "expired"),
                (future, "not yet in effect"),
                (malformed, "with unreadable dates"),
            )
            if count
        )
        raise NoMatch(
            "openei", f"no residential tariff {what} is in effect on {moment.date().isoformat()} ({found})"
        )
    return dated


def _unix(value: Any) -> int | None:
    """URDB dates are Unix seconds; text, booleans, negatives and non-finite numbers are not."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        return None
    return int(value)


def _variants_asked(items: list[_Item], asked: frozenset[str], what: str) -> tuple[list[_Item], list[str]]:
    """Items with exactly the variants the user asked for (none, usually). Asked for one OpenEI
    does not list here: the fewest-extras items that have it, else the plain plan, said in a note."""
    plain = [item for item in items if not variants_in(item.name)]
    if not asked:
        if not plain:
            kinds = sorted({kind for item in items for kind in variants_in(item.name)})
            raise NoMatch("openei", f"only {' / '.join(kinds)} versions of the tariff {what} are listed here")
        return plain, []
    having = [item for item in items if asked <= variants_in(item.name)]
    if having:
        fewest = min(len(variants_in(item.name)) for item in having)
        return [item for item in having if len(variants_in(item.name)) == fewest], []
    if not plain:
        raise NoMatch("openei", f"no {' / '.join(sorted(asked))} version of the tariff {what} is listed here")
    said = " / ".join(sorted(asked))
    return plain, [
        f"OpenEI lists no {said} version of this plan here, so these are its standard prices "
        f"(any {said} discount or credit is not included)."
    ]


def _priced(items: list[_Item], what: str) -> list[tuple[_Item, Tariff]]:
    """Each item as a Tariff; those that cannot be priced are skipped."""
    priced, reasons = [], []
    for item in items:
        try:
            tariff = tariff_from_urdb(
                item.raw,
                source=URDB_VIEW_URL + str(item.raw.get("label", "")),
                as_of=_day(item.start),
            )
        except (TariffError, ValueError, TypeError) as exc:
            reasons.append(str(exc))
            continue
        # URDB cannot say which days are tariff holidays; the utility's calendar can (holidays.py)
        known = find_utility(str(item.raw.get("utility", "")), answer=True)
        calendar = known[0].name if known and known[0].name in CALENDARS else None
        priced.append(
            (item, tariff.model_copy(update={"effective": _day(item.start), "holiday_calendar": calendar}))
        )
    if not priced:
        raise NoMatch("openei", f"tariff {what} cannot be priced: {reasons[0]}")
    return priced


def _day(unix: int) -> date:
    return datetime.fromtimestamp(unix, timezone.utc).date()


def _choose(
    priced: list[tuple[_Item, Tariff]], said: str, utility: str | None, notes: list[str]
) -> TariffMatch:
    """One candidate per distinct tariff: the newest version of each (utility, code); versions
    with the same start date that price differently stay apart. The user's utility's tariffs
    come first (the others are dropped when it has any), then its default plan, then the newest."""
    groups: dict[tuple[str, str], list[tuple[_Item, Tariff]]] = {}
    for item, tariff in priced:
        groups.setdefault((item.utility, squash(item.code or "")), []).append((item, tariff))
    options: list[tuple[str, _Item, Tariff, bool]] = []  # (code, item, tariff, split from its group)
    for members in groups.values():
        newest = max(item.start for item, _ in members)
        latest = [(item, tariff) for item, tariff in members if item.start == newest]
        distinct: list[tuple[_Item, Tariff]] = []
        for item, tariff in latest:
            if not any(_same_prices(tariff, kept) for _, kept in distinct):
                distinct.append((item, tariff))
        code = max((item.code or "" for item, _ in members), key=lambda text: text.count("-"))
        options += [(code, item, tariff, len(distinct) > 1) for item, tariff in distinct]
    theirs = [option for option in options if _same_utility(utility, str(option[1].raw.get("utility", "")))]
    options = theirs or options
    options.sort(
        key=lambda option: (not _is_default(option[1].utility, option[0]), -option[1].start, option[0])
    )
    utilities = {item.utility for _, item, _, _ in options}
    labels = [
        item.name if split else (f"{code} ({item.utility})" if len(utilities) > 1 else code)
        for code, item, _, split in options
    ]
    code, item, tariff, _ = options[0]
    return TariffMatch(
        tariff=tariff,
        requested=said,
        code=code,
        exact=item.exact,
        candidates=list(dict.fromkeys(labels)),
        ambiguous=len(options) > 1,
        utility=item.utility,
        several_utilities=len(utilities) > 1,
        notes=notes,
    )


def _same_prices(one: Tariff, other: Tariff) -> bool:
    return (
        [p.usd_per_kwh for p in one.periods] == [p.usd_per_kwh for p in other.periods]
        and one.weekday_schedule == other.weekday_schedule
        and one.weekend_schedule == other.weekend_schedule
        and one.fixed_charges == other.fixed_charges
    )


def _is_plan(name: str, plan: str | None) -> bool:
    found = match_code(squash(plan), name) if plan else None
    return bool(found and found.exact)


def _is_default(utility: str, code: str) -> bool:
    known = utility_named(utility)
    return bool(known and known.default_plan and squash(known.default_plan) == squash(code))


def _utility_default(priced: list[tuple[_Item, Tariff]], utility: str | None) -> TariffMatch:
    """No plan named: the utility's default plan if OpenEI lists it, else a standard tariff,
    else any of its residential tariffs; the newest. Never ambiguous: the answer already says
    the plan was not named."""
    known = utility_named(utility) if utility else None
    default = [(item, tariff) for item, tariff in priced if known and _is_plan(item.name, known.default_plan)]
    standard = [(item, tariff) for item, tariff in priced if _STANDARD.search(item.name)]
    pool = default or standard or priced
    item, tariff = max(pool, key=lambda pair: pair[0].start)
    return TariffMatch(tariff=tariff, candidates=[item.name], utility=item.utility)


# Without a plan name, a utility's standard residential tariff is the best guess (not an optional one).
_STANDARD = re.compile(r"\b(?:standard|general|basic|residential\s+service|schedule\s+r\b|rs\b|e-?1\b)", re.I)


def _utility_name(text: str) -> str:
    """'Pacific Gas & Electric Co' -> 'PG&E' (the utility table's name); unknown: as given."""
    known = utility_named(text) if text.strip() else None
    return known.name if known else text.strip()


def _same_utility(ours: str | None, theirs: str) -> bool:
    """'PG&E' and OpenEI's 'Pacific Gas & Electric Co' are the same utility (by the utility table)."""
    if not ours or not theirs:
        return False
    known, named = utility_named(ours), find_utility(theirs, answer=True)
    if known is not None and named is not None:
        return known.name == named[0].name
    return squash(ours)[:8] in squash(theirs)
