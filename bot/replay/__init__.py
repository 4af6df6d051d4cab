"""Replay recorded conversations through the current graph (`energy-advisor replay SUITE`)."""
