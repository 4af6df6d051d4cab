"""Does the passage found answer the question? Offline, two measured signals decide.

Retrieval always returns its best passage, even for a question no document covers ("whats a
virtual power plant" found the battery-reserve section); quoting it as the answer is the
confident quote about something else that users notice. The check, on the first passage:

- *meaning*: cosine of the question's and the passage's sentence embeddings (the search's own
  encoder), and
- *words*: the share of the question's distinctive words (weighted by how rare they are in the
  corpus, IDF) that the passage contains.

Below either threshold the advisor says it has no source and cites nothing. These thresholds
are the fallback: with the bundled encoder installed, the learned judge
(`knowledge/answer_judge.py`) decides from the same two signals and the pair's embeddings, and
the figures below are the thresholds' own. The thresholds were
chosen on the development questions (knowledge/eval/knowledge_dev_questions.jsonl, 110 questions a
helper wrote before reading the documents, labelled against the 55 documents), with the search as
shipped (hybrid, weighted): of 28 questions no document answers for the person asking, 13 are
declined; of 14 answerable ones whose first passage was the wrong one, 5; and 7 of 68 right first
passages are declined too. Declining is right 18 times of 25 (72 %); an answer given is right 61
times of 85 (72 %, against 68 of 110, 62 %, without the check). Half of the uncovered questions
still get a passage: the check is a floor against unrelated quotes, not a judge of answers.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from knowledge.documents import content_terms

MIN_MEANING = 0.35
MIN_WORDS = 0.25
# with the learned judge: a passage sharing this much of the question's meaning and words is kept
# whatever the judge says (it declines some plain matches: "should I switch my heating to a heat
# pump?" judged 0.28 for the page comparing them). First 0.48 and 0.35, chosen when the judge had
# learned from 430 questions; on the leave-one-set-out likelihoods of all twenty-six sets
# (2026-11-28) that kept 1 431 of 1 603 right first passages and declined 1 428 of 2 007 others,
# 0.55 and 0.45 keep 1 410 and decline 1 546, and no override at all 1 406 and 1 576 (but declines
# that plain question)
CLEAR_MEANING = 0.55
CLEAR_WORDS = 0.45


@dataclass(frozen=True)
class Answerability:
    meaning: float | None  # None without an embedding model (the words alone decide)
    words: float
    likelihood: float | None = None  # the learned judge's (knowledge/answer_judge.py), when it ran
    threshold: float | None = None

    @property
    def answers(self) -> bool:
        if self.likelihood is not None and self.threshold is not None:
            clear = self.meaning is not None and self.meaning >= CLEAR_MEANING and self.words >= CLEAR_WORDS
            return self.likelihood >= self.threshold or clear
        return self.words >= MIN_WORDS and (self.meaning is None or self.meaning >= MIN_MEANING)


def rarity(texts: Iterable[str]) -> dict[str, float]:
    """IDF of each term over the corpus's chunks (a term no chunk has gets the highest weight)."""
    frequency: Counter[str] = Counter()
    count = 0
    for text in texts:
        count += 1
        frequency.update(content_terms(text))
    return {term: math.log((count + 1) / (seen + 0.5)) for term, seen in frequency.items()} | {
        "": math.log((count + 1) / 0.5)
    }


def word_coverage(question: str, passage: str, idf: Mapping[str, float]) -> float:
    """The IDF-weighted share of the question's terms that the passage holds."""
    # numbers are values, not the subject ("we just moved to 02139", "built in 1962"): an unseen
    # ZIP code would otherwise weigh as the rarest word of all
    asked = {term for term in content_terms(question) if not term.replace(".", "").isdigit()}
    if not asked:
        return 1.0
    unseen = idf.get("", 1.0)
    total = sum(idf.get(term, unseen) for term in asked)
    held = content_terms(passage)
    return sum(idf.get(term, unseen) for term in asked if term in held) / total if total else 1.0
