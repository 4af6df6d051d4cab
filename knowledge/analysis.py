"""Search words: how the knowledge base and every question are cut into terms for BM25 and for
choosing the answering section — lower-cased words, English stop words out, Snowball's English
stemmer ("pumps", "heating", "charges" meet "pump", "heat", "charge").

Milvus' own English analyzer does this server-side, but Milvus Lite has only the standard
tokenizer (no stop words, no stemming: "what", "should" and "my" weighed as much as "powerwall",
and the water-heater section headed "What temperature should I set my water heater to?" ranked
first for "What percentage should I keep in my Powerwall?"). So the store indexes these terms,
the query is cut the same way, and the section choice uses them too: one tokenization everywhere.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
STOP_WORDS = frozenset(
    """a an the and or but if so of to in on at by for from with about as into onto over under than
    then too very just only also is are was were be been being am do does did doing done have has
    had having i me my mine we us our ours you your yours it its he she they them their this that
    these those what which who whom whose how why when where there here can could should would will
    shall may might must not no nor any some each other such own same both few all again more most
    much many get got s t d ll re ve m whats hows im ive id u ur pls plz""".split()
)
_stemmer = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


def terms(text: str) -> list[str]:
    """The text's search terms, in order ("How do heat pumps work?" -> ["heat", "pump", "work"])."""
    return [
        _stem(word)
        for word in _WORD.findall(text.lower().replace("'", ""))
        if word not in STOP_WORDS and (len(word) > 1 or word.isdigit())
    ]


def search_text(text: str) -> str:
    """What the BM25 index holds for a chunk, and what a query is searched with."""
    return " ".join(terms(text))
