"""App Home as the user's memory: every remembered fact in plain words, when it was said, the words it
came from, stale ones marked, and buttons to confirm, edit or forget it.

A user sees and fixes their own profile where they already are (Slack), without typing commands.
Every change goes through `ProfileRepository` with `ChangeSource(kind="app_home")`, so it is
validated by the profile model and kept in the change history like a change made in the chat.
The profile changed is always the clicking user's own (from the payload's `user`, which Slack
signs), never one named inside an action's value.
"""

from __future__ import annotations

import json
import logging
import typing
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from advisor.places import derived_place
from config.clock import Clock, as_utc
from profiles.models import SECTION_MODELS, ChangeSource, HistoryEntry, UserProfile
from profiles.repository import (
    InvalidValueError,
    ProfileError,
    ProfileNotSavedError,
    UnknownFieldError,
    split_field_path,
)
from profiles.staleness import section_ages
from profiles.staleness import staleness_days as days_between
from profiles.wording import DERIVED_FIELDS, NOUNS, UNITS, shown_value, statement

if TYPE_CHECKING:
    from bot.service import ConversationService

logger = logging.getLogger(__name__)

ACTION_CONFIRM = "home_fact_confirm"
ACTION_EDIT = "home_fact_edit"
ACTION_FORGET = "home_fact_forget"
EDIT_CALLBACK = "home_fact_edit"
EDIT_BLOCK = "fact_value"
EDIT_INPUT = "value"

MAX_BLOCKS = 100  # Slack's limit for a Home tab view
MAX_TEXT = 3000  # Slack's limit for a section's text
WORDS_SHOWN = 200  # characters of the user's words quoted under a fact
NOTE_SHOWN = 600  # characters shown per note from earlier conversations
NOTES_SHOWN = 3  # newest notes shown
SECTION_ORDER = ("location", "equipment", "household", "preferences")
PLACE_FIELDS = ("location.zip_code", "location.city")
SOURCE = ChangeSource(kind="app_home")

EMPTY_TEXT = (
    "I don't remember anything about your home yet. Send me a DM such as *When should I charge my EV?* "
    "or *We are 3 people and I drive a Tesla Model 3*, and what you tell me shows up here, where you "
    "can confirm, edit or forget it."
)
FOOTER = (
    "Only you can see this. Changes you make here are kept in your profile's history like the ones "
    'you make in a DM (say "undo" in a DM to take one back).'
)


@dataclass(frozen=True)
class Fact:
    """One remembered value, with where and when it came from (for display only)."""

    field: str
    value: Any
    said_at: datetime | None  # when the current value was said (or the section's timestamp)
    words: str | None  # the user's own words it came from
    from_app_home: bool
    known_origin: bool  # False: imported or history trimmed, so only the section's timestamp is known
    stale: bool


# --- the view ----------------------------------------------------------------------------------


def home_view(
    profile: UserProfile | None, *, staleness_days: int, now: datetime, max_blocks: int = MAX_BLOCKS
) -> dict[str, Any]:
    """The Home tab for one profile: a section per remembered fact with Confirm / Edit / Forget,
    the newest notes, and a footer; trimmed to `max_blocks` with a line saying what was left out."""
    blocks: list[dict[str, Any]] = [_header("What I remember about your home")]
    facts = remembered_facts(profile, staleness_days=staleness_days, now=now) if profile else {}
    notes = profile.notes[-NOTES_SHOWN:] if profile else []
    if not any(facts.values()) and not notes:
        blocks += [_section(EMPTY_TEXT), _context(FOOTER)]
        return {"type": "home", "blocks": blocks}
    groups: list[list[dict[str, Any]]] = []
    ages = {age.section: age for age in section_ages(profile, staleness_days, now)} if profile else {}
    for name in SECTION_ORDER:
        if facts.get(name):
            age = ages[name].age_days
            when = "never confirmed" if age is None else f"updated {_ago(age)}"
            stale = " · :warning: *stale*" if ages[name].stale else ""
            groups.append([{"type": "divider"}, _section(f"*{name.title()}* — _{when}_{stale}")])
            groups += [_fact_blocks(fact, staleness_days, now) for fact in facts[name]]
    if notes:
        groups.append([{"type": "divider"}, _section(_notes_text(notes))])
    blocks += _fit(groups, max_blocks - len(blocks) - 1)
    blocks.append(_context(FOOTER))
    return {"type": "home", "blocks": blocks}


def remembered_facts(profile: UserProfile, *, staleness_days: int, now: datetime) -> dict[str, list[Fact]]:
    """Each section's known facts, in the model's field order. Coordinates and timezone found from a
    ZIP or city are not listed separately (they go with the place), unless no place is known."""
    ages = {age.section: age for age in section_ages(profile, staleness_days, now)}
    facts: dict[str, list[Fact]] = {}
    for name in SECTION_ORDER:
        section = profile.section(name)
        if section is None:
            continue
        values = section.model_dump(exclude={"updated_at"})
        has_place = name == "location" and any(values.get(f.split(".")[1]) is not None for f in PLACE_FIELDS)
        for key, value in values.items():
            field = f"{name}.{key}"
            if value is None or (field in DERIVED_FIELDS and has_place):
                continue
            origin = _origin(profile.history, field, value)
            words = origin.source.text if origin is not None else None
            facts.setdefault(name, []).append(
                Fact(
                    field=field,
                    value=value,
                    said_at=origin.at if origin is not None else section.updated_at,
                    words=words.strip() if words and words.strip() else None,
                    from_app_home=origin is not None and origin.source.kind == "app_home",
                    known_origin=origin is not None,
                    stale=ages[name].stale,
                )
            )
    return facts


def _origin(history: list[HistoryEntry], field: str, value: Any) -> HistoryEntry | None:
    """The newest history entry that gave `field` its current value (None: imported, or history trimmed)."""
    for entry in reversed(history):
        if entry.field == field and entry.operation in ("set", "updated", "reverted"):
            return entry if entry.new_value == value else None
    return None


def _fact_blocks(fact: Fact, staleness_days: int, now: datetime) -> list[dict[str, Any]]:
    """A fact's text block and its buttons (two blocks)."""
    lines = [f"• {escape(statement(fact.field, fact.value))}"]
    when = "saved at an unknown time" if fact.said_at is None else _said(fact, now)
    if fact.from_app_home:
        lines.append(f"_{when}, set here in App Home_")
    elif fact.words:
        lines.append(f"_{when}, from your words:_\n> {escape(clip(fact.words, WORDS_SHOWN))}")
    else:
        lines.append(f"_{when}_ (I have no record of your exact words)")
    if fact.stale:
        lines.append(f":warning: *stale*: not confirmed in over {staleness_days} days. Still true?")
    buttons = [
        _button("Confirm", ACTION_CONFIRM, fact.field, style="primary" if fact.stale else None),
        _button("Edit", ACTION_EDIT, fact.field),
        _button("Forget", ACTION_FORGET, fact.field, style="danger", confirm=_forget_dialog(fact)),
    ]
    return [
        {"type": "section", "block_id": f"fact:{fact.field}", "text": _mrkdwn("\n".join(lines))},
        {"type": "actions", "block_id": f"do:{fact.field}", "elements": buttons},
    ]


def _said(fact: Fact, now: datetime) -> str:
    """'said today' / 'said 12 days ago (Nov 11, 2026)' (the date matters once it is not recent)."""
    assert fact.said_at is not None
    moment = as_utc(fact.said_at)
    days = days_between(moment, now)
    verb = "set" if fact.from_app_home else "said" if fact.known_origin else "saved"
    if days <= 1:
        return f"{verb} {_ago(days)}"
    return f"{verb} {_ago(days)} ({moment:%b} {moment.day}, {moment.year})"


def _ago(days: int) -> str:
    if days <= 0:
        return "today"
    return "yesterday" if days == 1 else f"{days} days ago"


def _forget_dialog(fact: Fact) -> dict[str, Any]:
    noun = NOUNS.get(fact.field, fact.field)
    return {
        "title": _plain("Forget this?"),
        "text": _mrkdwn(
            clip(f"I'll forget {escape(noun)} ({escape(shown_value(fact.field, fact.value))}).", 300)
        ),
        "confirm": _plain("Forget"),
        "deny": _plain("Keep it"),
    }


def _notes_text(notes: list[Any]) -> str:
    lines = [f"• {escape(clip(' '.join(note.content.split()), NOTE_SHOWN))}" for note in notes]
    return "*Notes from earlier conversations*\n" + "\n".join(lines)


def _fit(groups: list[list[dict[str, Any]]], room: int) -> list[dict[str, Any]]:
    """Whole groups while they fit in `room` blocks; past that, one line saying how many facts were
    left out (Slack refuses the whole view over 100 blocks, so a big profile must degrade)."""
    if sum(len(group) for group in groups) <= room:
        return [block for group in groups for block in group]
    kept: list[dict[str, Any]] = []
    for index, group in enumerate(groups):
        if len(kept) + len(group) > room - 1:
            left = sum(1 for g in groups[index:] for b in g if b.get("block_id", "").startswith("fact:"))
            more = "more of what I remember" if left == 0 else f"{left} more fact{'s' if left != 1 else ''}"
            kept.append(
                _context(f"…and {more}, which doesn't fit here. Ask me in a DM: *what do you know about me?*")
            )
            return kept
        kept += group
    return kept


# --- Block Kit pieces ------------------------------------------------------------------------


def escape(text: str) -> str:
    """Slack's mrkdwn escaping: user text can never become a mention, link or broadcast."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _plain(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": text}


def _mrkdwn(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": clip(text, MAX_TEXT)}


def _header(text: str) -> dict[str, Any]:
    return {"type": "header", "text": _plain(text)}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": _mrkdwn(text)}


def _context(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [_mrkdwn(text)]}


def _button(
    text: str, action_id: str, value: str, *, style: str | None = None, confirm: dict[str, Any] | None = None
) -> dict[str, Any]:
    button: dict[str, Any] = {"type": "button", "text": _plain(text), "action_id": action_id, "value": value}
    if style:
        button["style"] = style
    if confirm:
        button["confirm"] = confirm
    return button


# --- the edit modal ----------------------------------------------------------------------------


def edit_modal(field: str, value: Any) -> dict[str, Any]:
    """A modal to change one fact, prefilled with its current value: a menu where the model allows
    only some values (so every option validates), a text box otherwise."""
    noun = NOUNS.get(field, field)
    choices = _choices(field)
    if choices:
        options = [{"text": _plain(label), "value": raw} for raw, label in choices]
        element: dict[str, Any] = {"type": "static_select", "action_id": EDIT_INPUT, "options": options}
        current = next((o for o in options if o["value"] == _raw(value)), None)
        if current is not None:
            element["initial_option"] = current
    else:
        element = {"type": "plain_text_input", "action_id": EDIT_INPUT, "max_length": 500}
        if value is not None:
            element["initial_value"] = _raw(value)
    unit = UNITS.get(field)
    hint = f"In {unit}." if unit and unit != "people" else None
    if field == "location.flat_rate_usd_per_kwh":
        hint = "In US dollars per kWh, e.g. 0.25 for 25¢."
    block: dict[str, Any] = {
        "type": "input",
        "block_id": EDIT_BLOCK,
        "label": _plain(clip(noun[:1].upper() + noun[1:], 2000)),
        "element": element,
    }
    if hint:
        block["hint"] = _plain(hint)
    return {
        "type": "modal",
        "callback_id": EDIT_CALLBACK,
        "private_metadata": json.dumps({"field": field}),
        "title": _plain("Edit a fact"),
        "submit": _plain("Save"),
        "close": _plain("Cancel"),
        "blocks": [block],
    }


def _choices(field: str) -> list[tuple[str, str]]:
    """(raw value, plain words) for a field with a fixed set of values; empty for free text."""
    section, name = split_field_path(field)
    annotation = SECTION_MODELS[section].model_fields[name].annotation
    if annotation in (bool, bool | None):
        return [("true", "yes"), ("false", "no")]
    for arg in typing.get_args(annotation):
        if typing.get_origin(arg) is typing.Literal:
            return [(str(option), shown_value(field, option)) for option in typing.get_args(arg)]
    return []


def _raw(value: Any) -> str:
    """A stored value as the text the form holds (and the model reads back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def typed_value(field: str, text: str) -> str:
    """What the user typed, without a trailing unit the model would refuse ("11.5 kW" -> "11.5")."""
    value = " ".join(text.split())
    unit = UNITS.get(field)
    if unit and value.lower().endswith(unit.lower()):
        value = value[: -len(unit)].strip()
    if field == "location.flat_rate_usd_per_kwh":
        value = value.removeprefix("$").strip()
    return value


def submitted_value(view: dict[str, Any]) -> str | None:
    """The modal's one value (typed text or the chosen option's value)."""
    state = view.get("state", {}).get("values", {}).get(EDIT_BLOCK, {}).get(EDIT_INPUT, {})
    option = state.get("selected_option")
    value = option.get("value") if isinstance(option, dict) else state.get("value")
    return value if isinstance(value, str) else None


# --- Slack wiring ------------------------------------------------------------------------------


def profile_id_of(team_id: str | None, user_id: str | None) -> str | None:
    """The caller's profile id, or None when Slack's ids are unusable."""
    # Imported here: bot.slack_app imports this module to register the listeners.
    from bot.slack_app import profile_id
    from config.ids import InvalidIdError

    try:
        return profile_id(team_id, user_id)
    except InvalidIdError:
        return None


def publish_home(
    client: WebClient,
    service: ConversationService,
    user_slack_id: str,
    team_id: str | None,
    *,
    staleness_days: int,
    now: datetime,
) -> bool:
    """Render and publish one user's Home tab; False (logged at WARNING) when Slack refused it."""
    user = profile_id_of(team_id, user_slack_id)
    if user is None:
        logger.warning(
            "App Home not published: unusable Slack ids (team %r, user %r)", team_id, user_slack_id
        )
        return False
    view = home_view(service.profiles.get(user), staleness_days=staleness_days, now=now)
    try:
        client.views_publish(user_id=user_slack_id, view=view)
    except SlackApiError as exc:
        logger.warning("Slack views.publish failed for %s: %s", user, exc.response.get("error"))
        return False
    return True


def _actor(body: dict[str, Any]) -> tuple[str | None, str | None]:
    """(Slack user id, team id) of whoever clicked or submitted: the signed payload's `user`."""
    user = body.get("user") or {}
    team = user.get("team_id") or (body.get("team") or {}).get("id") or body.get("team_id")
    return user.get("id"), team


def _actor_profile(body: dict[str, Any]) -> str | None:
    """The profile of whoever clicked or submitted (never one named in a value or the form)."""
    slack_user, team = _actor(body)
    return profile_id_of(team, slack_user)


def _action_field(body: dict[str, Any]) -> str | None:
    """The field an App Home button names, if it is a real profile field (the value is all we read)."""
    actions = body.get("actions") or [{}]
    field = actions[0].get("value") or ""
    try:
        split_field_path(field)
    except UnknownFieldError:
        logger.warning("App Home action with an unknown field %r ignored", field[:100])
        return None
    return field


def _current(service: ConversationService, user: str, field: str) -> Any:
    profile = service.profiles.get(user)
    section_name, name = split_field_path(field)
    section = profile.section(section_name) if profile else None
    return getattr(section, name) if section is not None else None


def _forget_fields(service: ConversationService, user: str, field: str) -> list[str]:
    """The field, and the coordinates and timezone found from a place when it was the last place known."""
    if field not in PLACE_FIELDS:
        return [field]
    other = next(f for f in PLACE_FIELDS if f != field)
    return [field] if _current(service, user, other) is not None else [field, *sorted(DERIVED_FIELDS)]


def register_home(app: App, *, service: ConversationService, staleness_days: int, clock: Clock) -> None:
    """The Home tab's listeners: publish on open, Confirm / Edit / Forget buttons, and the edit form.

    The `app_home_opened` listener matches only `tab == "home"`: Bolt runs the first listener that
    matches, so a messages-tab listener registered after this one still gets its events."""

    def publish(client: WebClient, body: dict[str, Any]) -> None:
        slack_user, team = _actor(body)
        if slack_user:
            publish_home(client, service, slack_user, team, staleness_days=staleness_days, now=clock())

    @app.event("app_home_opened", matchers=[lambda event: event.get("tab") == "home"])
    def on_home_opened(event: dict[str, Any], body: dict[str, Any], client: WebClient) -> None:
        if event.get("tab") != "home":
            return
        publish_home(
            client,
            service,
            event.get("user", ""),
            body.get("team_id"),
            staleness_days=staleness_days,
            now=clock(),
        )

    @app.action(ACTION_CONFIRM)
    def on_confirm(ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        user, field = _actor_profile(body), _action_field(body)
        if user is None or field is None:
            return
        value = _current(service, user, field)
        if value is not None:  # forgotten since the view was drawn: nothing to confirm
            try:
                service.profiles.apply_change(user, field, value, source=SOURCE)
            except ProfileError as exc:
                logger.warning("App Home confirm of %s for %s not saved: %s", field, user, exc)
        publish(client, body)

    @app.action(ACTION_FORGET)
    def on_forget(ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        user, field = _actor_profile(body), _action_field(body)
        if user is None or field is None:
            return
        try:
            service.profiles.forget(user, _forget_fields(service, user, field), source=SOURCE)
        except ProfileError as exc:
            logger.warning("App Home forget of %s for %s not saved: %s", field, user, exc)
        publish(client, body)

    @app.action(ACTION_EDIT)
    def on_edit(ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        user, field = _actor_profile(body), _action_field(body)
        if user is None or field is None:
            return
        try:
            client.views_open(
                trigger_id=body.get("trigger_id", ""), view=edit_modal(field, _current(service, user, field))
            )
        except SlackApiError as exc:
            logger.warning("Slack views.open failed for %s: %s", user, exc.response.get("error"))

    @app.view(EDIT_CALLBACK)
    def on_edit_submitted(ack: Ack, body: dict[str, Any], view: dict[str, Any], client: WebClient) -> None:
        user = _actor_profile(body)
        field = _metadata_field(view)
        text = submitted_value(view)
        if user is None or field is None or text is None:
            ack(
                response_action="errors",
                errors={EDIT_BLOCK: "Sorry, I couldn't save that. Please try again."},
            )
            return
        source = SOURCE.model_copy(update={"text": clip(text, 2000)})
        value = typed_value(field, text)
        changes, stale = place_edit(field, value)
        try:
            result = service.profiles.apply_changes(user, changes, source=source)
            if result.refused:
                raise result.refused[0].error
            if stale:
                service.profiles.forget(user, stale, source=source)
        except (InvalidValueError, ProfileNotSavedError) as exc:
            ack(response_action="errors", errors={EDIT_BLOCK: _sentence(exc.reason)})
            return
        ack()
        publish(client, body)


PLACE_DERIVED = ("location.city", "location.lat", "location.lon", "location.timezone")


def place_edit(field: str, value: Any) -> tuple[list[tuple[str, Any]], list[str]]:
    """(changes, fields to forget) for an edit: a new ZIP brings its town, coordinates and time
    zone as in the chat (`derived_place`; App Home has no geocoder, so the built-in table); a ZIP
    the table cannot place, or a new city (its ZIP is unknown), must not keep the old town's
    (forecasts, solar and off-peak hours would be for the wrong place)."""
    if field == "location.zip_code":
        extra, place = derived_place([(field, value)])
        return (
            ([(field, value), *extra], []) if place is not None else ([(field, value)], list(PLACE_DERIVED))
        )
    if field == "location.city":
        return [(field, value)], ["location.zip_code", "location.lat", "location.lon", "location.timezone"]
    return [(field, value)], []


def _metadata_field(view: dict[str, Any]) -> str | None:
    """The field the modal edits (set by us when opening it; still checked against the model)."""
    try:
        field = json.loads(view.get("private_metadata") or "{}").get("field", "")
        split_field_path(field)
    except (ValueError, AttributeError, UnknownFieldError):
        return None
    return field


def _sentence(reason: str) -> str:
    text = reason.strip().rstrip(".")
    return text[:1].upper() + text[1:] + "."
