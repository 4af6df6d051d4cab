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
    return f"{doc.source}#{hashlib.sha256(doc.text.encode()).hexdigest()[:12]}"


class Retriever(Protocol):
    def retrieve(
        self, query: str, k: int = 4, config: Any = None, where: Where = NOWHERE
    ) -> list[RetrievedDocument]:
        """`config` is the caller's RunnableConfig, so retrieval callbacks join the turn's trace;
        `where` is the place the question is for (another place's passages are left out)."""
        ...
