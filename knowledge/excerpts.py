"""The part of a knowledge passage that answers a question, cut to a readable excerpt.

Used by the offline stand-in to quote a passage as its answer; kept with the knowledge base
because it reads passages (markdown), not the user's words.
"""

from __future__ import annotations

import re

from knowledge.documents import content_terms

_ABBREVIATION_END = re.compile(r"(?:\b[ap]\.m\.|\be\.g\.|\bi\.e\.|\bvs\.|\betc\.|\bapprox\.|\bNo\.)$", re.I)
EXCERPT_CHARS = 700


def _sentences(text: str) -> list[str]:
    """Sentences of a paragraph; "4-9 p.m. every day" is not two sentences."""
    pieces = re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
    sentences: list[str] = []
    for piece in pieces:
        if sentences and _ABBREVIATION_END.search(sentences[-1]) and not piece[:1].isupper():
            sentences[-1] += " " + piece
        else:
            sentences.append(piece)
    return sentences


def answering_part(question: str, passage: str) -> str:
    """The passage's body ("Title — Section" line removed) from the paragraph that answers the
    question. The first paragraph opens the section and stays first unless it holds none of the
    question's own words (those the title and heading do not already say) and a later one does;
    then the answer starts at the later paragraph holding the most. A lead-in ending in ":" stays
    with the list after it."""
    header, _, body = passage.partition("\n\n")
    if not body:
        return passage
    paragraphs: list[str] = []
    for paragraph in re.split(r"\n\s*\n", body.strip()):
        if paragraphs and paragraphs[-1].rstrip().endswith(":"):
            paragraphs[-1] += "\n\n" + paragraph
        elif paragraph.strip():
            paragraphs.append(paragraph)
    distinctive = content_terms(question) - content_terms(header)
    said = [len(distinctive & content_terms(paragraph)) for paragraph in paragraphs]
    start = said.index(max(said)) if said and said[0] == 0 and max(said) > 0 else 0
    return "\n\n".join(paragraphs[start:])


def passage_excerpt(body: str, limit: int = EXCERPT_CHARS) -> str:
    """The start of a passage as the answer: whole lines, a list kept whole (a list cut after
    two of its three items says something the source does not), a long paragraph cut at a
    sentence end."""
    lines = [
        line.rstrip() for line in body.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    kept: list[str] = []
    size = 0
    for index, line in enumerate(lines):
        is_item = line.lstrip().startswith(("- ", "* ")) or bool(re.match(r"\s*\d+\.\s", line))
        if kept and size + len(line) > limit and not (is_item and size + len(line) <= 2 * limit):
            break
        if not kept and len(line) > limit and not is_item:
            sentences = _sentences(line)
            taken = [sentences[0]]
            for sentence in sentences[1:]:
                if len(" ".join([*taken, sentence])) > limit:
                    break
                taken.append(sentence)
            kept.append(" ".join(taken))
            break
        kept.append(line)
        size += len(line)
        # a list's lead-in ("EV-TOU-5 has three price levels:") must bring its items
        if index + 1 < len(lines) and line.endswith(":"):
            continue
    return "\n".join(kept)
