"""One reader: `advisor.understanding` is the only code that reads the user's words.

The graph's nodes and the offline stand-in get what a message means from the `Understanding`;
none of them may match patterns over text (they would be a second reader, as `advisor/intent.py`
and the old recall patterns were). And the reader and the nodes stay small: ruff's C901 caps
their functions' complexity at 20 (`make lint`, and `make test` runs ruff first)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NO_PATTERNS = sorted([*(ROOT / "advisor" / "nodes").glob("*.py"), ROOT / "advisor" / "llm" / "offline.py"])


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", NO_PATTERNS, ids=lambda p: str(p.relative_to(ROOT)))
def test_nodes_and_the_offline_model_do_not_match_patterns(path: Path) -> None:
    assert not imported_modules(path) & {"re", "regex", "fnmatch"}, f"{path.name} reads text with patterns"


def test_the_old_second_readers_are_gone() -> None:
    assert not (ROOT / "advisor" / "intent.py").exists()
    assert not (ROOT / "advisor" / "understanding" / "rules.py").exists()


def test_the_import_check_would_catch_a_pattern(tmp_path: Path) -> None:
    sneaky = tmp_path / "node.py"
    sneaky.write_text("from re import compile as c\n")
    assert "re" in imported_modules(sneaky)


def test_complexity_is_capped_at_20_in_the_reader_and_the_nodes() -> None:
    config = (ROOT / "pyproject.toml").read_text()
    assert '"C901"]' in config and "max-complexity = 20" in config
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--quiet",
            "--select",
            "C901",
            "advisor/understanding",
            "advisor/nodes",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
