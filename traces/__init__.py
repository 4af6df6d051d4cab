"""Traces in ContextForge format, their storage, the graders and the evaluate command.

Imports only `config` and libraries.
"""
