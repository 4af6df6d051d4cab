"""Transports (command line now; Slack and the terminal chat next) and the conversation service.

Nothing imports `bot`; it may import every other package.
"""
