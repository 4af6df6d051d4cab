"""Per-turn overhead of the whole stack with a zero-latency scripted model and mock tools.

Run: .venv/bin/python -m bench.turn [--rounds N]

Measures, in one run on a temporary data directory: median and p95 milliseconds of a
tool-using turn ("When should I charge my EV?" for a configured user), a knowledge turn, a
statement turn (facts saved in the turn) and a mixed statement-plus-question turn, including the
one session write and the trace; LLM calls, prompt tokens (characters / 4, as the scripted model
reports no counts; tool schemas included, since Ollama renders them into the prompt) and session
writes per turn; and how prompt tokens grow over a 20-turn thread. Twice: with a model reading the
message (Ollama mode: the understanding call is one of the LLM calls), and with the offline reader
(the grammar and the meaning model over a MiniLM embedding computed afresh every turn: no cache).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from advisor.graph import Toolkit, build_advisor
from advisor.llm.factory import ModelSet
from advisor.llm.offline import reading_json
from advisor.llm.payloads import UNDERSTANDING_KEY
from advisor.tools.data import build_data_sources
from advisor.tools.toolkit import build_tools
from advisor.understanding.models import ReadingContext
from advisor.understanding.reader import LearnedReader, understand
from bot.samples import CONFIGURED
from bot.service import ConversationService
from config.files import AgentsConfig, AppConfig, EvalConfig, ToolsConfig
from config.settings import Settings
from knowledge.encoder import SentenceEncoder, sentence_encoder
from profiles.json_store import JsonFileStore

PROFILE = {**CONFIGURED, "user_id": "bench-user"}  # the sample scenarios' configured household


class ScriptedModel(BaseChatModel):
    """Zero-latency stand-in: the analyzer calls the charging tool, recommend answers."""

    role: str
    calls: list[int] = []  # prompt tokens of each call (chars / 4)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools])

    def _generate(
        self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any
    ) -> ChatResult:
        chars = sum(len(str(message.content)) for message in messages) + len(
            json.dumps(kwargs.get("tools") or [])
        )
        self.calls.append(chars // 4)
        if self.role == "understanding":
            # a competent reader's JSON (the offline reader's reading in the model's schema)
            request = messages[-1].additional_kwargs.get(UNDERSTANDING_KEY) or {}
            context = ReadingContext.model_validate(request.get("context") or {})
            message = AIMessage(content=reading_json(understand(str(request.get("text", "")), context)))
        elif self.role == "analyzer" and kwargs.get("tools"):
            message = AIMessage(
                content="",
                tool_calls=[
                    {"name": "plan_ev_charging", "args": {}, "id": f"c{len(self.calls)}", "type": "tool_call"}
                ],
            )
        else:
            message = AIMessage(content="Charge between 2:51 and 7:00 on off-peak rates for about $9.90.")
        return ChatResult(generations=[ChatGeneration(message=message)])


def build(folder: Path, *, offline_reader: bool = False) -> tuple[ConversationService, list[ScriptedModel]]:
    config = AppConfig(agents=AgentsConfig(), tools=ToolsConfig(mode="mock"), eval=EvalConfig())
    models = [
        ScriptedModel(role=role, calls=[]) for role in ("analyzer", "recommend", "memorizer", "understanding")
    ]
    data = build_data_sources(Settings(_env_file=None), config.tools, httpx.Client())
    shared = sentence_encoder()
    uncached = SentenceEncoder(shared.encode_uncached, shared.model_hash, memory_items=0)
    advisor = build_advisor(
        models=ModelSet(
            analyzer=models[0],
            recommend=models[1],
            memorizer=models[2],
            labels={},
            understanding=None if offline_reader else models[3],
        ),
        tools=Toolkit(tools=build_tools(data), data=data),
        store=JsonFileStore(folder),
        config=config,
        understander=LearnedReader(encoder=uncached) if offline_reader else None,
    )
    advisor.profiles.import_profile(PROFILE)
    return ConversationService(advisor=advisor), models


STATEMENT = "We're a family of four and I work from home now."
MIXED = (
    "We're with PG&E on EV2-A and I drive a Tesla Model 3. When should I charge tonight to be ready by 7am?"
)


def count_session_writes(service: ConversationService) -> list[int]:
    """Wrap the session repository's write so the benchmark can report writes per turn."""
    counter = [0]
    sessions = service.sessions
    original = sessions._write

    def counted(session: Any) -> None:
        counter[0] += 1
        original(session)

    sessions._write = counted  # type: ignore[method-assign]
    return counter


def measure(
    service: ConversationService, models: list[ScriptedModel], text: str, rounds: int
) -> dict[str, Any]:
    timings, calls, tokens, writes = [], [], [], []
    counter = (
        count_session_writes(service) if not hasattr(service, "_bench_writes") else service._bench_writes
    )
    service._bench_writes = counter  # type: ignore[attr-defined]
    for index in range(rounds):
        before = [len(model.calls) for model in models]
        written = counter[0]
        start = time.perf_counter()
        service.handle_turn("bench-user", f"thread-{len(text)}-{index}", text)
        timings.append((time.perf_counter() - start) * 1000)
        writes.append(counter[0] - written)
        new = [model.calls[count:] for model, count in zip(models, before, strict=True)]
        calls.append(sum(len(part) for part in new))
        tokens.append(sum(sum(part) for part in new))
    ordered = sorted(timings)
    return {
        "median_ms": statistics.median(timings),
        "p95_ms": ordered[max(0, int(len(ordered) * 0.95) - 1)],
        "llm_calls": statistics.median(calls),
        "prompt_tokens": statistics.median(tokens),
        "session_writes": statistics.median(writes),
    }


def thread_growth(service: ConversationService, models: list[ScriptedModel], turns: int = 20) -> list[int]:
    growth = []
    for _ in range(turns):
        before = [len(model.calls) for model in models]
        service.handle_turn("bench-user", "long-thread", "When should I charge my EV?")
        growth.append(sum(sum(model.calls[count:]) for model, count in zip(models, before, strict=True)))
    return growth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=100)
    rounds = parser.parse_args().rounds
    print(f"turn benchmark, {rounds} turns each, zero-latency scripted model, mock data APIs")
    for offline_reader in (False, True):
        with tempfile.TemporaryDirectory() as folder:
            service, models = build(Path(folder), offline_reader=offline_reader)
            measure(
                service, models, "When should I charge my EV?", 5
            )  # warm-up: imports, first compile paths
            results = {
                "tool turn (charging plan)": measure(service, models, "When should I charge my EV?", rounds),
                "knowledge turn": measure(service, models, "How do heat pumps work?", rounds),
                "statement turn": measure(service, models, STATEMENT, rounds),
                "statement + question turn": measure(service, models, MIXED, rounds),
            }
            growth = thread_growth(service, models)
        print("offline reader (no understanding call):" if offline_reader else "a model reads each message:")
        for name, result in results.items():
            print(
                f"  {name:<27} median {result['median_ms']:6.2f} ms  p95 {result['p95_ms']:6.2f} ms  "
                f"LLM calls {result['llm_calls']:.0f}  prompt tokens {result['prompt_tokens']:.0f}  "
                f"session writes {result['session_writes']:.0f}"
            )
        print("  prompt tokens per turn over a 20-turn thread:", " ".join(str(tokens) for tokens in growth))


if __name__ == "__main__":
    main()
