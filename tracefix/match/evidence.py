"""What was observed about one record for one log, and the numbers the confidence model reads.

A record's signature says which error it is; its situation (frames, calls, packages, settings)
says which cause. The two are kept apart here because a generic signature (one that several records
share, one a specific record inherits from its family, or one the labelled threads show with other
causes) proves nothing about the cause.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracefix.logs.signature import anchor
from tracefix.match.constraints import Verdict

SPECIFIC_CHARS = 60
DENSE_FLOOR, DENSE_SPAN = 0.25, 0.55  # cosine below the floor says nothing; above floor+span, all it can

FEATURES = ("symptom", "on_root", "specificity", "dense", "bm25", "frames_hit", "frames_missed", "packages_hit",
            "situation_seen", "situation_unseen", "shared_symptom", "family_head", "affected", "not_affected",
            "situation_without_symptom", "frames_without_symptom")


@dataclass(frozen=True)
class Evidence:
    symptom: str | None            # the record's signature found in the log, if any
    on_root: bool                  # ...found in the root failure itself
    dense: float                   # cosine similarity of the query text and the record's text
    bm25: float                    # BM25 of the log's words for this record, scaled to 0..1 over candidates
    frames_hit: tuple[str, ...]    # record frame hints seen in the log's frames or text
    packages_hit: tuple[str, ...]  # record packages seen in the log
    frames_missed: bool            # the record names specific frames, the log has a traceback, and none shows
    situation: tuple[str, ...]     # the record's situation hints (its `situation`, else its specific frames)
    situation_seen: tuple[str, ...]
    shared_symptom: bool           # the matched signature belongs to other records too
    family_member: bool            # the record refines a generic family record (its signature is generic)
    other_causes: bool             # labelled threads show its message with other causes (the record says so)
    family_head: bool              # the record is a generic family record
    beside_failure: bool           # the record's message is only a warning, and the log's root failure is another
    verdict: Verdict

    @property
    def needs_situation(self) -> bool:
        """A generic signature alone does not tell this record's cause apart."""
        return not self.family_head and (self.family_member or self.other_causes
                                         or (bool(self.symptom) and self.shared_symptom))

    @property
    def situation_shown(self) -> bool:
        """The record's own cause shows: its situation in the log, or the environment confirming it."""
        return bool(self.situation_seen) or self.verdict.confirms_cause

    def features(self) -> tuple[float, ...]:
        dense = min(1.0, max(0.0, (self.dense - DENSE_FLOOR) / DENSE_SPAN))
        specificity = min(len(anchor(self.symptom)), SPECIFIC_CHARS) / SPECIFIC_CHARS if self.symptom else 0.0
        unseen = self.needs_situation and not self.situation_shown
        values = (bool(self.symptom), self.on_root, specificity, dense, self.bm25, bool(self.frames_hit), self.frames_missed,
                  bool(self.packages_hit) and not self.frames_hit, bool(self.situation_seen), unseen, self.shared_symptom,
                  self.family_head, self.verdict.verdict == "affected", self.verdict.verdict == "not-affected",
                  # Without its signature a record is a guess: what else shows counts for less (the model learns how much).
                  bool(self.situation_seen) and not self.symptom, bool(self.frames_hit) and not self.symptom)
        return tuple(float(v) for v in values)
