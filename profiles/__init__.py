"""Long-term memory (user profiles) and short-term memory (sessions) on a JSON LangGraph store.

Imports only `config` and libraries (see DESIGN.md's dependency direction).
"""
