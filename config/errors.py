"""The one error type for bad configuration: names the file, the key, the bad value and what is allowed."""

from __future__ import annotations


class ConfigError(Exception):
    """Raised at start-up when a setting or YAML value is unusable."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: " + "; ".join(problems))
