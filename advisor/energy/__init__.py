"""Energy core: deterministic, unit-explicit calculations the LLM only explains.

Units are in names (`_kw`, `_kwh`, `_usd_per_kwh`, `_pct`), times are timezone-aware,
slots are `[start, end)`, and every result carries its provenance.
"""
