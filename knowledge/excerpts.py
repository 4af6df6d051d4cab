"""The part of a knowledge passage that answers a question, cut to a readable excerpt.

Used by the offline stand-in to quote a passage as its answer; kept with the knowledge base
because it reads passages (markdown), not the user's words.
"""

from __future__ import annotations

import re

from knowledge.documents import FILLER_TERMS, content_terms

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
    distinctive = content_terms(question) - content_terms(header) - FILLER_TERMS
    # the term asked about may be the heading's own ("what a demand charge is (kW vs. kWh)")
    # the question is its last sentence ("i rent so i cant do much. what even is a kwh")
    last = re.split(r"(?<=[.!?])\s+", question.strip())[-1]
    definition = _definition(last, paragraphs, content_terms(last) - _ASKING_WORDS)
    if definition is not None:
        return definition
    said = [len(distinctive & content_terms(paragraph)) for paragraph in paragraphs]
    start = said.index(max(said)) if said and said[0] == 0 and max(said) > 0 else 0
    return "\n\n".join(paragraphs[start:])


# "what even is a kwh", "whats SEER", "what does net metering mean": a term to define
_DEFINITION_ASKED = re.compile(
    r"^\W*(?:(?:so|ok|okay|hey|um+|and|but)\W+)*(?:what(?:'s|s|\s+is|\s+are|\s+even\s+is|\s+exactly\s+is|\s+does)"
    r"|define|meaning\s+of)\b",
    re.I,
)
# words that ask, not what is asked about ("what EVEN is a kwh", "what EXACTLY does hspf MEAN")
_ASKING_WORDS = content_terms(
    "even exactly actually really basically simply mean means meaning like just term word thing"
)
# a sentence that says what its subject is ("A kWh measures …", "Net metering is …")
_DEFINES = re.compile(
    # (never a clause that opens with "whether", "if", "how": "Whether community solar is available …")
    r"^(?!(?:whether|if|when|how|because|although|while|since|where|once|unless)\b)"
    r"(?:an?\s+|the\s+)?[\w()/&.-]+(?:\s+[\w()/&.-]+){0,5}?\s+(?:is|are|means|measures|refers\s+to|describes|stands\s+for|bills)\b",
    re.I,
)


def _definition(question: str, paragraphs: list[str], asked: set[str]) -> str | None:
    """For a question asking what a term is, the sentence that defines it, and what follows it up
    to the next sentence that defines something else ("A demand charge bills …" after "A kWh
    measures …"): the answer to "what even is a kwh" is not the demand-charge paragraph it opens."""
    if not _DEFINITION_ASKED.match(question):
        return None
    for paragraph in paragraphs:
        if paragraph.lstrip().startswith(("- ", "* ")):
            continue
        sentences = _sentences(paragraph)
        for index, sentence in enumerate(sentences):
            opening = _DEFINES.match(sentence)
            if opening is None:
                continue
            named = content_terms(opening.group(0))
            wanted = {term for term in asked if term in content_terms(paragraph)}
            if not wanted or not wanted <= named:
                continue
            kept = [sentence]
            for following in sentences[index + 1 :]:
                other = _DEFINES.match(following)
                if other is not None and not (content_terms(other.group(0)) & wanted):
                    break  # the next term's definition
                kept.append(following)
            return " ".join(kept)
    return None


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
