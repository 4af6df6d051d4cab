"""Real local servers that speak the protocols of the external systems (Ollama, Slack, data APIs)."""
