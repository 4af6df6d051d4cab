"""Where a number came from: every energy-core result carries one."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class Provenance(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: str
    as_of: datetime
    is_mock: bool = False
    assumptions: list[str] = Field(default_factory=list)
