"""Build the chat model for each role from `config/agents.yaml`."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from advisor.llm.offline import OfflineChatModel
from config.files import AgentsConfig, RoleConfig

ROLES = ("understanding", "analyzer", "recommend", "memorizer")


@dataclass(frozen=True)
class ModelSet:
    analyzer: BaseChatModel
    recommend: BaseChatModel
    memorizer: BaseChatModel
    labels: dict[str, str]  # role -> "ollama:llama3.1:8b" or "offline"
    # None offline: the offline reader understands messages without a stand-in "model" call.
    understanding: BaseChatModel | None = None

    @property
    def offline(self) -> bool:
        return all(label == "offline" for label in self.labels.values())


def chat_model(
    role: str, config: RoleConfig, *, ollama_base_url: str, force_offline: bool = False
) -> tuple[BaseChatModel, str]:
    if force_offline or config.provider == "offline":
        return OfflineChatModel(role=role, tags=[f"role:{role}"]), "offline"
    from langchain_ollama import ChatOllama  # imported on first use: 1.2 s an offline start need not pay

    model = ChatOllama(
        tags=[f"role:{role}"],  # traces name the role that made each LLM call
        base_url=ollama_base_url,
        model=config.model,
        temperature=config.temperature,
        num_ctx=config.num_ctx,
        client_kwargs={"timeout": config.request_timeout_seconds},
    )
    return model, f"ollama:{config.model}"


def build_models(agents: AgentsConfig, *, ollama_base_url: str, force_offline: bool = False) -> ModelSet:
    """`force_offline` is set at start-up when Ollama or its models are missing."""
    built = {
        role: chat_model(role, config, ollama_base_url=ollama_base_url, force_offline=force_offline)
        for role, config in agents.chat_roles().items()
    }
    return ModelSet(
        analyzer=built["analyzer"][0],
        recommend=built["recommend"][0],
        memorizer=built["memorizer"][0],
        labels={role: label for role, (_, label) in built.items()},
        understanding=None if built["understanding"][1] == "offline" else built["understanding"][0],
    )
