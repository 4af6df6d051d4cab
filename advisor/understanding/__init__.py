"""Understanding a message: intent, stated facts, slot answers and request parameters (issue 9/10)."""
