"""Benchmarks (not tests): run with `.venv/bin/python -m bench.<name>`; they print medians and ratios."""
