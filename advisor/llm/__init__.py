"""Chat models per role: Ollama (the real runtime) or the labelled offline stand-in."""
