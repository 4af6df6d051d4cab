"""Knowledge-base documents: markdown with YAML front matter, split into chunks by heading.

Each chunk is one `##` section (long sections are split between paragraphs) with the
document title kept in its text, so a chunk read alone still says what it is about.
Chunk ids are content hashes: an unchanged chunk keeps its id, so re-ingesting it is free.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from knowledge.analysis import terms

MAX_CHUNK_WORDS = 300  # a few hundred tokens


class MalformedDocumentError(ValueError):
    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path.name}: {reason}")


class SourceLink(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1)
    url: str

    @field_validator("url")
    @classmethod
    def _https(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")):
            raise ValueError("must be an http(s) URL")
        return value


# Where a document applies: "US" (everywhere), a state ("CA", "TX"), or a state and one utility
# ("CA:PG&E"). A passage for one place is never given as the answer to someone elsewhere.
_APPLIES_TO = re.compile(r"^(?:US|[A-Z]{2}(?::[^:\s][^:]{0,60})?)$")


class FrontMatter(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=3)
    topics: list[str] = Field(min_length=1)
    applies_to: str = Field(description='"US", a state code ("TX"), or a state and a utility ("CA:PG&E")')
    sources: list[SourceLink] = Field(min_length=1)
    as_of: date

    @field_validator("applies_to")
    @classmethod
    def _where(cls, value: str) -> str:
        value = value.strip()
        if not _APPLIES_TO.match(value):
            raise ValueError(
                'must be "US", a state code such as "TX", or a state and utility such as "CA:PG&E"'
            )
        return value


class Chunk(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str  # content hash
    source: str  # file name, e.g. heat-pumps-how-they-work.md
    title: str
    section: str
    text: str  # "Title — Section\n\nbody", what is indexed and shown
    applies_to: str = "US"  # the document's jurisdiction (FrontMatter.applies_to)

    @property
    def hash(self) -> str:
        return self.id


class Document(BaseModel):
    path: Path
    meta: FrontMatter
    body: str

    @property
    def source(self) -> str:
        return self.path.name

    def chunks(self) -> list[Chunk]:
        return list(_chunk(self))


_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n(.*)\Z", re.DOTALL)


def parse_document(path: Path) -> Document:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MalformedDocumentError(path, f"cannot be read ({exc})") from None
    match = _FRONT.match(text)
    if not match:
        raise MalformedDocumentError(
            path, "no front matter (a '---' block with title, topics, sources, as_of)"
        )
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        raise MalformedDocumentError(path, f"front matter is not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise MalformedDocumentError(path, "front matter must be a mapping")
    try:
        meta = FrontMatter.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise MalformedDocumentError(path, f"front matter {where}: {first['msg']}") from None
    body = match.group(2).strip()
    if len(body.split()) < 20:
        raise MalformedDocumentError(path, "the body is empty or too short")
    return Document(path=path, meta=meta, body=body)


def load_documents(folder: Path) -> tuple[list[Document], list[MalformedDocumentError]]:
    """Every `*.md` in the folder (sorted); malformed ones are returned separately, not raised."""
    documents, problems = [], []
    for path in sorted(folder.glob("*.md")):
        try:
            documents.append(parse_document(path))
        except MalformedDocumentError as exc:
            problems.append(exc)
    return documents, problems


def _chunk(document: Document) -> list[Chunk]:
    title = document.meta.title
    sections: list[tuple[str, list[str]]] = [("Overview", [])]
    for line in document.body.splitlines():
        if line.startswith("# ") and not sections[-1][1]:
            continue  # the document's own title line
        heading = re.match(r"^#{2,3}\s+(.*)", line)
        if heading:
            sections.append((heading.group(1).strip(), []))
        else:
            sections[-1][1].append(line)
    chunks = []
    where = document.meta.applies_to
    for section, lines in sections:
        for part in _split(("\n".join(lines)).strip()):
            text = f"{title} — {section}\n\n{part}"
            digest = hashlib.sha256(f"{document.source}\n{where}\n{text}".encode()).hexdigest()[:32]
            chunks.append(
                Chunk(
                    id=digest,
                    source=document.source,
                    title=title,
                    section=section,
                    text=text,
                    applies_to=where,
                )
            )
    return chunks


# --- question words -------------------------------------------------------------------------
# Which section (or paragraph) of a document answers a question is decided on the question's
# content words, cut exactly as the search cuts them (knowledge/analysis.py).


def content_terms(text: str) -> set[str]:
    """The stemmed content words of a text ("How do heat pumps work?" -> {heat, pump, work})."""
    return set(terms(text))


# Words of a question that say how it is asked, not what about ("what does tou MEAN ANYWAY", "is the
# tax credit STILL AVAILABLE"): they never pick a section or a paragraph of a passage
FILLER_TERMS = frozenset(
    terms(
        "mean means meaning anyway actually basically exactly really even like lol tho though okay ok guys stuff "
        "thing still available anymore currently exist exists"
    )
)


def _split(body: str) -> list[str]:
    """Split a section between paragraphs so each part stays under MAX_CHUNK_WORDS; a lead-in ending
    in ":" stays with the list after it ("A few habits make it cheaper…:" had been a passage of its
    own, quoted as the whole answer)."""
    if not body:
        return []
    parts, current = [], []
    for paragraph in re.split(r"\n\s*\n", body):
        leads_in = bool(current) and current[-1].rstrip().endswith(":")
        if current and not leads_in and len(" ".join(current + [paragraph]).split()) > MAX_CHUNK_WORDS:
            parts.append("\n\n".join(current))
            current = []
        current.append(paragraph)
    parts.append("\n\n".join(current))
    return parts
