"""Text from outside (a terminal, a Slack event) made safe to store, trace and send.

A terminal line with bytes that are not UTF-8 reaches Python as lone surrogates (stdin's
`surrogateescape`); a Slack event can carry a lone surrogate as a JSON escape ("\\ud800"). Neither
can be encoded as UTF-8, so the session and trace files could not be written and the turn was lost.
Each one becomes U+FFFD, the replacement character, and the message is answered and saved.
"""

from __future__ import annotations

import re

REPLACEMENT_CHARACTER = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (valid text is returned unchanged)."""
    return _SURROGATE.sub(REPLACEMENT_CHARACTER, text)
