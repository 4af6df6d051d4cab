"""Text between the advisor and Slack: Markdown out as mrkdwn, Slack markup in as plain text,
long answers split at paragraph boundaries under Slack's limits."""

from __future__ import annotations

import html
import re

SECTION_LIMIT = 2900  # a section block's text may hold 3000 characters
BLOCKS_PER_MESSAGE = 20  # Slack allows 50; fewer keeps each message readable
AI_NOTICE = "AI-generated — check before acting on it."

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![*\w])_(.+?)_(?![*\w])")
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$", re.MULTILINE)
_BULLET = re.compile(r"^(\s*)[-*]\s+", re.MULTILINE)


def to_mrkdwn(markdown: str) -> str:
    """Model Markdown to Slack mrkdwn: **bold** -> *bold*, [t](u) -> <u|t>, headings -> bold lines,
    list dashes -> bullets. Slack's control characters &, <, > are escaped first."""
    text = markdown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _LINK.sub(lambda m: f"<{m.group(2)}|{m.group(1)}>", text)
    text = _HEADING.sub(lambda m: f"*{m.group(1).strip()}*", text)
    text = _BOLD.sub(lambda m: f"*{m.group(1)}*", text)
    text = _ITALIC.sub(lambda m: f"_{m.group(1)}_", text)
    return _BULLET.sub(lambda m: f"{m.group(1)}• ", text)


_USER = re.compile(r"<@([A-Z0-9]+)(?:\|([^>]+))?>")
_CHANNEL = re.compile(r"<#([A-Z0-9]+)(?:\|([^>]*))?>")
_URL = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]+))?>")
_SPECIAL = re.compile(r"<!(\w+)(?:\^[^|>]*)?(?:\|([^>]+))?>")


def from_slack(text: str) -> str:
    """Slack markup to plain text: <@U1> -> @user, <https://x|y> -> y (https://x), <!here> -> @here."""
    text = _USER.sub(lambda m: f"@{m.group(2) or 'someone'}", text)
    text = _CHANNEL.sub(lambda m: f"#{m.group(2) or 'a channel'}", text)
    text = _URL.sub(
        lambda m: f"{m.group(2)} ({m.group(1)})" if m.group(2) and m.group(2) != m.group(1) else m.group(1),
        text,
    )
    text = _SPECIAL.sub(lambda m: f"@{m.group(2) or m.group(1)}", text)
    return html.unescape(text)


def split_paragraphs(text: str, limit: int = SECTION_LIMIT) -> list[str]:
    """Pieces of at most `limit` characters, cut between paragraphs (then lines, then words)."""
    pieces: list[str] = []
    current = ""
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        for part in _fit(paragraph, limit):
            candidate = f"{current}\n\n{part}" if current else part
            if len(candidate) <= limit:
                current = candidate
            else:
                pieces.append(current)
                current = part
    if current:
        pieces.append(current)
    return pieces or [""]


def _fit(paragraph: str, limit: int) -> list[str]:
    if len(paragraph) <= limit:
        return [paragraph]
    parts, current = [], ""
    for word in re.split(r"(\s+)", paragraph):
        if len(current) + len(word) > limit and current:
            parts.append(current.rstrip())
            current = ""
        while len(word) > limit:  # one enormous "word" (a URL, a run of emoji)
            parts.append(word[:limit])
            word = word[limit:]
        current += word
    if current.strip():
        parts.append(current.rstrip())
    return parts


def notice_block() -> dict:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": AI_NOTICE}]}


def answer_messages(answer: str, *, closing_blocks: list[dict] | None = None) -> list[tuple[str, list[dict]]]:
    """(fallback text, blocks) per Slack message; `closing_blocks` (default: the AI notice) close
    the last one."""
    sections = [
        {"type": "section", "text": {"type": "mrkdwn", "text": piece}}
        for piece in split_paragraphs(to_mrkdwn(answer))
        if piece.strip()
    ]
    messages = []
    for start in range(0, len(sections), BLOCKS_PER_MESSAGE):
        blocks = sections[start : start + BLOCKS_PER_MESSAGE]
        fallback = "\n\n".join(block["text"]["text"] for block in blocks)[:3000]
        messages.append((fallback, blocks))
    if not messages:  # nothing left to say (all of it was streamed): the closing blocks alone
        messages.append((AI_NOTICE, []))
    messages[-1][1].extend(closing_blocks if closing_blocks is not None else [notice_block()])
    return messages
