"""`energy-advisor chat`: the advisor in a terminal, on the same conversation service as Slack."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from advisor.progress import Step
from bot.service import ConversationService
from bot.text_input import clean_text
from config.clock import utc_now
from profiles.staleness import section_ages
from profiles.wording import fact_lines

SESSION_PREFIX = "cli-"
HELP = """Commands:
  /help      this help
  /profile   what I remember about you, with the age of each part
  /forget X  forget part of your profile (e.g. /forget zip, /forget ev, /forget everything)
  /new       start a new conversation (the current one is memorized first)
  /quit      memorize this conversation and leave (also: Ctrl-D)
Anything else is a question, e.g. "When should I charge my EV?" or "How do heat pumps work?\""""


def terminal_user_id(name: str) -> str:
    """A profile id from a login name, restricted to the id pattern the store accepts."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "-", name).strip("-")[:50]
    return f"local-{cleaned or 'user'}"


def new_session_id() -> str:
    return f"{SESSION_PREFIX}{utc_now():%Y%m%d}-{uuid.uuid4().hex[:8]}"


def run_chat(
    service: ConversationService,
    *,
    user_id: str,
    new_session: bool = False,
    staleness_days: int = 90,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> int:
    latest = None if new_session else service.sessions.latest(user_id, prefix=SESSION_PREFIX)
    session_id = latest.session_id if latest and latest.status == "active" else new_session_id()
    write(f"Home Energy Advisor: talking as {user_id} (conversation {session_id}). Type /help for commands.")
    while True:
        try:
            text = clean_text(read("you> "))  # bytes that were not UTF-8 become U+FFFD
        except (EOFError, KeyboardInterrupt):
            write("")
            _memorize(service, user_id, session_id, write)
            return 0
        command = text.strip().lower()
        if command in ("/quit", "/exit"):
            _memorize(service, user_id, session_id, write)
            return 0
        if command == "/help":
            write(HELP)
            continue
        if command == "/profile":
            write(describe_profile(service, user_id, staleness_days))
            continue
        if command == "/forget" or command.startswith("/forget "):
            what = text.strip()[len("/forget") :].strip()
            if not what:
                write("What should I forget? For example: /forget zip, /forget ev, /forget everything.")
                continue
            reply = service.handle_turn(
                user_id,
                session_id,
                f"forget {'everything' if what.lower() in ('all', 'everything') else 'my ' + what}",
            )
            write(f"advisor> {reply.text}")
            continue
        if command == "/new":
            _memorize(service, user_id, session_id, write)
            session_id = new_session_id()
            write(f"New conversation {session_id}.")
            continue
        write("advisor is thinking…")
        reply = service.handle_turn(user_id, session_id, text, progress=StepLines(write))
        write(f"advisor> {reply.text}")
        if reply.intent == "goodbye":
            return 0
        if reply.memorize_due:  # mid-conversation: said only when it saved something
            _memorize(service, user_id, session_id, write, quiet=True)


class StepLines:
    """The slow parts of a turn as they start ("  · Looking up PG&E EV2-A prices"), so a turn on a
    real model does not look stuck; the answer itself is printed whole when it is done."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write

    def step(self, step: Step) -> None:
        if step.id.startswith("tool-") and step.status == "in_progress":
            self._write(f"  · {step.title}…")
        elif step.id == "retrieval":
            self._write(f"  · {step.title}: {step.details}" if step.details else f"  · {step.title}")

    def text(self, chunk: str) -> None:
        return None


def _memorize(
    service: ConversationService,
    user_id: str,
    session_id: str,
    write: Callable[[str], None],
    *,
    quiet: bool = False,
) -> None:
    session = service.sessions.get(user_id, session_id)
    if session is None or not session.needs_memorizing:
        return
    try:
        result = service.memorize(user_id, session_id)
    except Exception as exc:  # leaving must never fail; the session stays un-memorized
        write(f"(Could not save this conversation to your profile: {exc}. It will be retried next time.)")
        return
    said = result.describe_changes()
    if said or not quiet:
        write(said or "Nothing new to save to your profile.")


def describe_profile(service: ConversationService, user_id: str, staleness_days: int) -> str:
    profile = service.profiles.get(user_id)
    if profile is None:
        return "I don't know anything about you yet. Ask a question and I'll ask what I need."
    lines = [f"Profile {user_id}:"]
    ages = {age.section: age for age in section_ages(profile, staleness_days)}
    for name in ("location", "equipment", "household", "preferences"):
        section = getattr(profile, name)
        if section is None:
            continue
        values = fact_lines(profile, name)
        if not values:
            continue
        age = ages[name]
        when = "never confirmed" if age.age_days is None else f"{age.age_days} days old"
        marker = " (STALE: please confirm)" if age.stale else ""
        lines.append(f"  {name} [{when}]{marker}: {'; '.join(values)}")
    lines.extend(f"  note: {note.content}" for note in profile.notes[-3:])
    if len(lines) == 1:
        return "I don't have anything saved about you yet. Tell me about your home or ask a question."
    return "\n".join(lines)
