"""The LangGraph advisor: state, nodes, analyzer, memorizer, tools, energy core, models, prompts.

Imports `knowledge`, `profiles`, `traces` and `config`; never `bot`.
"""
