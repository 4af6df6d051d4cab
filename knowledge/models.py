"""What retrieval returns (spec 000's RetrievedDocument) and what a retriever must offer."""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from knowledge.jurisdiction import NOWHERE, Where


class RetrievedDocument(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    source: str
    score: float = Field(ge=0, le=1)  # normalized relevance (FR-035)
    title: str | None = None
    applies_to: str = "US"  # where the passage's document applies: "US", "TX", "CA:PG&E"


def passage_key(doc: RetrievedDocument) -> str:
    """One passage's identity across turns: its document and a hash of its words."""
    return key_of(doc.source, doc.text)


def key_of(source: str, text: str) -> str:
    return f"{source}#{hashlib.sha256(text.encode()).hexdigest()[:12]}"


class Retriever(Protocol):
    def retrieve(
        self,
        query: str,
        k: int = 4,
        config: Any = None,
        where: Where = NOWHERE,
        skip: frozenset[str] = frozenset(),
    ) -> list[RetrievedDocument]:
        """`config` is the caller's RunnableConfig, so retrieval callbacks join the turn's trace;
        `where` is the place the question is for (another place's passages are left out); `skip`:
        passages already given (`passage_key`), so a document offers its next best passage."""
        ...
