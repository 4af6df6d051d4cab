"""Remember: apply what the user just stated to their profile, before anything decides what is
missing (FR-012). One write per turn: the stated values, the place derived from a ZIP or city,
and what those make wrong (the old town's coordinates, the old car's battery size) go in one
change group, and the reply says exactly what was saved, refused or left alone (`profiles.wording`).
"""

from __future__ import annotations

import logging
from typing import Any

from advisor.energy.catalog import normalize_utility, utility_of_plan
from advisor.energy.utilities import utility_named
from advisor.energy.vehicles import vehicle_spec
from advisor.onboarding import suggested_utility
from advisor.places import derived_place, find_city, find_town, place_fields, zip_place, zip_state
from advisor.replies import second_values, uncatalogued_note, unkept_note, unsure_note
from advisor.state import AdvisorState
from advisor.tools.data import DataSources
from advisor.tools.http import ApiError
from advisor.tools.open_meteo import Place
from advisor.understanding.models import Understanding
from profiles.loaded import Loaded
from profiles.models import ChangeSource, UserProfile
from profiles.repository import AppliedChanges, ChangeRecord, ProfileRepository
from profiles.wording import (
    describe_refused,
    describe_removed,
    describe_saved,
    join,
    said_of_someone_at_home,
    statement,
)
from traces.recorder import current_trace

logger = logging.getLogger(__name__)
Changes = list[tuple[str, Any]]


def make_remember(*, profiles: ProfileRepository, data: DataSources):
    def geocode(query: str) -> Place | None:
        try:
            return data.open_meteo.geocode(query)
        except ApiError as exc:
            logger.info("Geocoding failed (%s); using the built-in tables", exc.reason)
            return None

    def remember(state: AdvisorState) -> dict[str, Any]:
        understanding: Understanding = state["understanding"]
        profile = state.get("user_profile")
        understanding, kept_car = _household_car(_same_car_named_shorter(understanding, profile), profile)
        changes, place_note = _changes(understanding, geocode)
        agreed = _agrees_to_suggestion(state, understanding, profile)
        if agreed is not None:  # "yes" to "Around 94102 that's usually PG&E"
            changes.append(("location.utility_provider", agreed))
            answered = understanding.slot_answer.model_copy(update={"status": "answered"})  # type: ignore[union-attr]
            understanding = understanding.model_copy(update={"slot_answer": answered})
        removals, old_battery = _made_wrong(changes, profile, corrected=understanding.intent == "correction")
        went = _went(understanding, profile, changes)  # "we rent, no ev, electric heat": the EV goes
        removals += [field for field in went if field not in removals]
        stale_zip = _zip_elsewhere(changes, profile)
        removals += [stale_zip] if stale_zip else []
        old_plan = _plan_of_old_utility(changes, profile)
        removals += ["location.rate_schedule"] if old_plan else []
        result = AppliedChanges(profile=profile)
        if changes:
            result = profiles.apply_changes(
                state["user_id"],
                changes,
                source=change_source(state, understanding),
                removals=removals,
                base=loaded_profile(state),
            )
            _record(state["user_id"], result, removals)
        if not any(r.field == "equipment.ev_battery_kwh" and r.new_value is None for r in result.applied):
            old_battery = None
        if not any(r.field == "location.rate_schedule" and r.new_value is None for r in result.applied):
            old_plan = None
        zip_note = _zip_dropped(result)
        gone_note = describe_removed(
            [r for r in result.applied if r.field in went and r.new_value is None], verb="Removed"
        )
        said = " ".join(
            part
            for part in (
                _said(understanding, result, place_note),
                old_battery,
                old_plan,
                zip_note,
                gone_note,
                kept_car,
                _utility_after_move(result, result.profile),
            )
            if part
        )
        return {
            "understanding": understanding,
            "user_profile": result.profile,
            "notices": [*state.get("notices", []), *([said] if said else [])],
            "session_facts": _session_facts(understanding, result, state.get("turn_count") or 1),
            "profile_changes": [change.model_dump(mode="json") for change in result.applied],
            "statement_changed": any(change.operation != "confirmed" for change in result.applied),
            "place_unknown": place_note is not None,
            "said": bool(said),
        }

    return remember


def loaded_profile(state: AdvisorState) -> Loaded[UserProfile]:
    """The profile as this turn read it, with its version (a write then needs no second read)."""
    return Loaded(state.get("user_profile"), state.get("profile_version"))


def change_source(state: AdvisorState, understanding: Understanding) -> ChangeSource:
    """Where the turn's changes come from: the user's words, in this session and turn."""
    answered = understanding.slot_answer is not None and understanding.slot_answer.status == "answered"
    return ChangeSource(
        kind="onboarding" if answered else "user_statement",
        session_id=state.get("session_id"),
        turn=state.get("turn_count") or None,
        text=state["messages"][-1].content[:2000] if state.get("messages") else None,
    )


def _changes(understanding: Understanding, geocode) -> tuple[Changes, str | None]:
    """The field changes a message's facts make, with a place's coordinates and timezone derived
    from the ZIP or city (geocoder first, then the built-in tables)."""
    changes: Changes = [(fact.field, fact.value) for fact in understanding.facts]
    fields = {field for field, _ in changes}
    if fields & {"location.zip_code", "location.city"}:
        extra, _ = derived_place(changes, geocode)
        return changes + extra, None
    if understanding.place_query:
        query = understanding.place_query
        place = geocode(query) or find_city(query) or find_town(query)
        if place is None:
            return (
                changes,
                f"I couldn't pin down where {understanding.place_query!r} is. What's your ZIP code?",
            )
        return changes + [("location.city", place.name), *place_fields(place)], None
    return changes, None


def _household_car(
    understanding: Understanding, profile: UserProfile | None
) -> tuple[Understanding, str | None]:
    """'my wife drives a Model Y' when the profile already has the user's own EV: the profile keeps one
    EV, so the user's is not replaced by someone else's in the household without asking."""
    equipment = profile.equipment if profile else None
    current = equipment.ev_model if equipment else None
    fact = next((f for f in understanding.facts if f.field == "equipment.ev_model"), None)
    if fact is None or not current or fact.value == current or not fact.household:
        return understanding, None
    kept = [
        f for f in understanding.facts if f.field not in ("equipment.ev_model", "equipment.ev_battery_kwh")
    ]
    note = (
        f'I keep one EV per home and yours is the {current}, so I left it; say "my EV is a {fact.value}" '
        "if that's the one you charge at home."
    )
    return understanding.model_copy(update={"facts": kept}), note


def _same_car_named_shorter(understanding: Understanding, profile: UserProfile | None) -> Understanding:
    """ "need the leaf at 100 by 7" when the profile has a Nissan Leaf Plus: the same car named
    shorter, never a change (a less specific name would lose the trim and its battery size)."""
    equipment = profile.equipment if profile else None
    current = equipment.ev_model if equipment else None
    fact = next((f for f in understanding.facts if f.field == "equipment.ev_model"), None)
    if fact is None or not current or fact.value == current:
        return understanding
    said, held = set(str(fact.value).lower().split()), set(str(current).lower().split())
    if not said < held:
        return understanding
    kept = [f for f in understanding.facts if f.field != "equipment.ev_model"]
    return understanding.model_copy(update={"facts": kept})


def _zip_elsewhere(changes: Changes, profile: UserProfile | None) -> str | None:
    """A new town without a ZIP code: the stored ZIP is another town's, and would keep pricing and
    weather there; it is removed in the same write (and the reply asks for the new one)."""
    new = dict(changes)
    location = profile.location if profile else None
    if location is None or not location.zip_code or "location.zip_code" in new or "location.city" not in new:
        return None
    old_town = zip_place(location.zip_code)
    town = str(new["location.city"]).split(",")[0].strip().lower()
    if old_town is None or old_town.name.lower() == town:
        return None
    return "location.zip_code"


def _zip_dropped(result: AppliedChanges) -> str | None:
    removed = next(
        (r for r in result.applied if r.field == "location.zip_code" and r.new_value is None), None
    )
    if removed is None:
        return None
    return (
        f"I've dropped the ZIP code {removed.old_value}, which is another town's; what's your ZIP code now?"
    )


def _agrees_to_suggestion(
    state: AdvisorState, understanding: Understanding, profile: UserProfile | None
) -> str | None:
    if state.get("pending_slot") != "utility" or understanding.facts or understanding.slot_answer is None:
        return None
    return suggested_utility(profile) if understanding.affirmed else None


def _went(understanding: Understanding, profile: UserProfile | None, changes: Changes) -> list[str]:
    """Equipment a statement says is gone, that the profile holds and the statement does not set."""
    if understanding.intent != "profile_statement" or profile is None:
        return []
    setting = {field for field, _ in changes}
    held = []
    for field in understanding.forget:
        section, name = field.split(".", 1)
        part = getattr(profile, section, None)
        if field not in setting and part is not None and getattr(part, name, None) is not None:
            held.append(field)
    return held


def _made_wrong(
    changes: Changes, profile: UserProfile | None, *, corrected: bool = False
) -> tuple[list[str], str | None]:
    """Stored values the changes make wrong, removed in the same write: a new ZIP the tables cannot
    place must not keep the old town's coordinates; a new car must not keep the old car's typical
    battery size (a size the user gave stays). A car name corrected ("no wait its a model 3 not y")
    keeps the size they gave with it: it was the car they meant's."""
    new = dict(changes)
    location = profile.location if profile else None
    equipment = profile.equipment if profile else None
    removals: list[str] = []
    if (
        location is not None
        and location.zip_code
        and new.get("location.zip_code") not in (None, location.zip_code)
        and not {"location.lat", "location.city"} & new.keys()
    ):
        removals += ["location.city", "location.lat", "location.lon"]
    old_car = equipment.ev_model if equipment else None
    battery = equipment.ev_battery_kwh if equipment else None
    new_car = new.get("equipment.ev_model")
    if (
        corrected
        or not old_car
        or new_car in (None, old_car)
        or battery is None
        or "equipment.ev_battery_kwh" in new
    ):
        return removals, None
    spec = vehicle_spec(str(old_car))
    if spec is None or abs(spec.battery_kwh - battery) > 0.05:
        return (
            removals,
            None,
        )  # a size the user gave (maybe for the new car): only the old car's typical size goes
    note = (
        f"I've dropped the {battery:g} kWh battery size, which was your {old_car}'s; "
        f"until you tell me yours I'll use a typical {new_car}'s."
    )
    return [*removals, "equipment.ev_battery_kwh"], note


def _plan_of_old_utility(changes: Changes, profile: UserProfile | None) -> str | None:
    """A new utility whose customers cannot be on the stored plan ("moved to san diego, sdge now"
    with PG&E's EV2-A on file): the plan goes in the same write, and the reply says so; it would
    otherwise price an SDG&E home on PG&E's tariff. A plan we cannot place stays."""
    new = dict(changes)
    location = profile.location if profile else None
    if location is None or not location.rate_schedule or "location.rate_schedule" in new:
        return None
    utility = new.get("location.utility_provider")
    if not utility or utility == location.utility_provider:
        return None
    owner = utility_of_plan(location.rate_schedule)
    now = normalize_utility(str(utility)) or str(
        utility
    )  # a utility outside the catalog has none of its plans
    if owner is None or owner == now:
        return None
    return (
        f"I've dropped your rate plan {location.rate_schedule}, which is a {owner} plan; "
        f"tell me your {now} plan (it's on your bill) so prices are right."
    )


def _utility_after_move(result: AppliedChanges, profile: UserProfile | None) -> str | None:
    """The place or utility changed this turn and the utility on file does not serve that state:
    ask, never guess or erase."""
    changed = {c.field for c in result.applied if c.operation in ("set", "updated")}
    location = profile.location if profile else None
    if not changed & {"location.zip_code", "location.city", "location.utility_provider"} or location is None:
        return None
    utility = utility_named(location.utility_provider) if location.utility_provider else None
    place = (find_city(location.city) or find_town(location.city)) if location.city else None
    state = (zip_state(location.zip_code) if location.zip_code else None) or (place.state if place else None)
    if utility is None or state is None or state in utility.states:
        return None
    where = location.zip_code or location.city
    return (
        f"Is {utility.name} still your utility? It serves {join(list(utility.states))}, and {where} is in "
        f"{state}. Tell me your utility (and rate plan) so prices are right."
    )


def _said(understanding: Understanding, result: AppliedChanges, place_note: str | None) -> str:
    """Exactly what happened to each stated fact, in plain words."""
    # removals are said by their own note; a request that names what we know ("charge the tesla")
    # is not a statement to confirm
    stated = [
        c
        for c in result.applied
        if c.new_value is not None and not (understanding.asks and c.operation == "confirmed")
    ]
    saved = describe_saved(stated)
    for fact in understanding.facts:
        if fact.household and fact.field == "household.work_schedule":
            # "my wife works from home": the household's schedule, not "you work from home"
            mine = statement(fact.field, fact.value)
            saved = saved.replace(mine, said_of_someone_at_home(mine))
    parts = [saved] if saved else []
    # (what the saved value was read from, said once: 'I read "40 amps" assuming 40 A at 240 V')
    assumptions = [
        f'"{fact.said}" assuming {fact.assumption}'
        for fact in understanding.facts
        if fact.assumption and any(change.field == fact.field for change in result.applied)
    ]
    if assumptions:
        parts.append("I read " + join(assumptions) + "; tell me if that's off.")
    facts = {fact.field: fact for fact in understanding.facts}
    for refused in result.refused:
        fact = facts.get(refused.field)
        parts.append(
            describe_refused(
                refused.field,
                refused.value,
                refused.reason,
                fact.unit if fact else None,
                said=fact.said if fact and fact.assumption else None,  # "-40 amps", not "-9.6 A"
            )
        )
    if place_note:
        parts.append(place_note)
    unsure = [m for m in understanding.mentions if m.reason == "unverified"]
    skipped = understanding.slot_answer is not None and understanding.slot_answer.status == "skipped"
    if (
        understanding.asks
        and understanding.hedged
        and not skipped  # "not sure what plan tbh": the skip note says it, once
        and (unsure or (understanding.follow_up and not stated))
    ) or (unsure and result.applied and not understanding.asks and not skipped):
        # "regular residential i think": answered, not kept; "94110, pge, e-tou-c i think": the
        # sure facts saved, and the unsure one said to be left out (it had vanished without a word)
        parts.append(unsure_note(understanding))
    if result.applied and (second := second_values(understanding)):
        parts.append(second)
    if result.applied and (unkept := unkept_note(understanding)):
        parts.append(unkept)  # "bangor maine, versant power. we heat w oil": the oil heard, not lost
    if result.applied and (plan := uncatalogued_note(understanding)):
        parts.append(plan)  # "aps, were on the saver choice plan (4-7pm peak)": the plan heard, not lost
    return " ".join(parts)


def _session_facts(understanding: Understanding, result: AppliedChanges, turn: int) -> list[dict[str, Any]]:
    """What became of each stated fact this turn (the memorizer skips these later)."""
    outcome: dict[str, str] = {
        change.field: "confirmed" if change.operation == "confirmed" else "saved" for change in result.applied
    }
    outcome.update({refused.field: "refused" for refused in result.refused})
    stated = [
        {
            "turn": turn,
            "field": fact.field,
            "value": fact.value,
            "status": outcome[fact.field],
            "words": fact.words,
        }
        for fact in understanding.facts
        if fact.field in outcome
    ]
    # "aep ohio i think": not saved, but kept for the thread as what they think (onboarding prices
    # with it, says so, and does not ask for the utility they just named)
    unsure = [
        {"turn": turn, "field": m.field, "value": named.name, "status": "unsure", "words": m.words}
        for m in understanding.mentions
        if m.reason == "unverified"
        and m.field == "location.utility_provider"
        and (named := utility_named(m.words)) is not None
    ]
    return stated + unsure


def _record(user_id: str, result: AppliedChanges, removals: list[str]) -> None:
    trace = current_trace()
    if trace is None:
        return
    if removed := [r.field for r in result.applied if r.new_value is None and r.field in removals]:
        trace.state_change(
            "removal_requested",
            {"fields": removed},
            node="remember",
            reason="the user's new ZIP or car made the stored value wrong",
        )
    for change in result.applied:
        record_write(user_id, change, node="remember")
    if result.refused:
        trace.state_change(
            "refused_facts",
            [{"field": r.field, "value": r.value, "reason": r.reason} for r in result.refused],
            node="remember",
            reason="did not validate; the reply says why",
        )


def record_write(user_id: str, change: ChangeRecord, *, node: str) -> None:
    trace = current_trace()
    if trace is not None:
        trace.memory_write(
            ("profiles", user_id),
            "profile",
            operation="delete" if change.new_value is None else "update",
            data={change.field: change.new_value},
            changes=[(change.field, change.old_value, change.new_value)],
            node=node,
        )
