"""Keys under which nodes attach structured data to the messages they send a model.

A language model reads the rendered text; the offline model reads these structured copies
instead of re-parsing text. Kept apart from `offline.py` so nodes never import the offline model.
"""

CONTEXT_KEY = "advisor_context"  # recommend: the RecommendContext
CONVERSATION_KEY = "conversation"  # memorizer: [{turn, text}] of the user's messages
KNOWN_KEY = "known_fields"  # memorizer: the profile's values, which the messages are read against
PARAMS_KEY = "request_params"  # analyzer: the request's parameters (ready-by hour, target %, ...)
UNDERSTANDING_KEY = "understanding_request"  # understanding: {text, context} of the message to read
