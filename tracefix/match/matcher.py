"""The matcher: loaded once (store, index, embedder), then `match(report, env)` per log.

Candidates come from three retrievers (FAISS on meaning, FTS5 on words, signatures on the log's
failure text); each candidate's evidence is scored in `scoring`, checked against the environment
in `constraints`, and explained.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from tracefix.env.environment import Environment
from tracefix.indexer.embed import Embedder
from tracefix.kb.view import RecordView
from tracefix.kb.snapshot import Snapshot
from tracefix.kb.store import Store
from tracefix.logs.report import LogReport
from tracefix.logs.signature import anchor, compile_symptom, flatten, mask, symptom_matches
from tracefix.match import constraints, fixcmd, sanity, scoring, situation
from tracefix.match.evidence import Evidence
from tracefix.match.result import Match, MatchResult, Specific

RETRIEVE = 15
QUERY_CHARS = 120  # the embedded query: bench/query_length.py found no quality change from 64 to 320 chars; 120 keeps the message head
SCAN_ALL_UP_TO = 5000  # records; above this, signatures are checked on retrieved candidates only
_GENERIC_FRAMES = frozenset({"torch", "python", "builtins"})


@dataclass(frozen=True)
class Query:
    """The parts of a log the retrievers look at."""

    text: str          # embedded for dense similarity
    words: str         # sent to FTS5
    masked: str        # the failure text, masked, for signature matching
    flat: str          # the same, flattened: where signature anchors are looked up
    root_masked: str   # the root failure alone
    modules: tuple[str, ...]  # frame modules and packages seen
    prefixes: frozenset[str]  # ...and every dotted prefix of them, lower-cased: where hints are looked up
    raw: str           # the failure text as it is, lower-cased: file paths still in it


def build_query(report: LogReport) -> Query:
    root = report.root
    root_line = f"{root.exception or ''}: {root.message}" if root else ""
    modules = tuple(dict.fromkeys([*(f.module for f in root.frames if f.module), *report.packages] if root else report.packages))
    tail = "\n".join(report.excerpt.splitlines()[-15:])
    text = "\n".join(p for p in (root_line or tail, " ".join(modules[:8])) if p)
    words = " ".join([root_line or tail, *(f.message for f in report.failures[1:4]), " ".join(modules[:8])])
    # NCCL's WARN lines are the details its "unhandled system error" points to: part of the root.
    details = [f.message for f in report.failures if f.kind == "nccl" and f is not root][:5]
    root_text = "\n".join([root_line, *details])
    masked = mask(report.excerpt)
    return Query(text=text[:QUERY_CHARS], words=words, masked=masked, flat=flatten(masked), root_masked=mask(root_text),
                 modules=modules, prefixes=situation.module_prefixes(modules), raw=report.excerpt.lower())


class Matcher:
    """Holds the knowledge base in memory; safe to call `match` from several threads."""

    def __init__(self, store: Store, index, ids: tuple[str, ...], embedder: Callable[[], Embedder],
                 snapshot: Snapshot | None = None):
        """`embedder` is a factory called on first use; the loader hands in one whose model is already
        loading in a background thread (see indexer.background). `snapshot`: the store's records,
        when the caller has them already."""
        self.store = store
        self.index = index
        snapshot = snapshot or store.snapshot()
        self.records: dict[str, RecordView] = {r.id: r for r in snapshot.records}
        self.ids = ids
        self.position = {rid: i for i, rid in enumerate(ids)}
        self.symptom_owners = snapshot.symptom_owners
        self.members = {r.family for r in snapshot.records if r.family}  # ids of generic family records
        self.specifics = _specifics(snapshot.records)
        self.anchors = snapshot.anchors
        self._embedder_factory = embedder
        self._embedder: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = self._embedder_factory()
        return self._embedder

    def match(self, report: LogReport, env: Environment, top: int = 3) -> MatchResult:
        ranked = _families([_judge(record, e) for record, e in self.evidence(report, env)])
        matches = tuple(self._to_match(j, env) for j in ranked[:top])  # reasons and commands only for what is shown
        return MatchResult(report, env, matches, tuple(sanity.environment_warnings(env, report)))

    def evidence(self, report: LogReport, env: Environment) -> list[tuple[RecordView, Evidence]]:
        """Every candidate record with what the log shows about it (what the confidence model is fitted on)."""
        query = build_query(report)
        vector = self.embedder.embed([query.text]) if self.ids else None
        dense = self._dense(vector)
        words = self._bm25(query.words)
        candidates = [self.records[rid] for rid in self._candidates(dense, words, query) if rid in self.records]
        return [(r, self._observe(r, query, dense, vector, words, env)) for r in candidates]

    # -- retrievers ------------------------------------------------------------------------

    def _dense(self, vector: np.ndarray | None) -> dict[str, float]:
        if vector is None:
            return {}
        scores, rows = self.index.search(vector, min(RETRIEVE, len(self.ids)))
        return {self.ids[r]: float(s) for s, r in zip(scores[0], rows[0]) if r >= 0}

    def _bm25(self, words: str) -> dict[str, float]:
        hits = self.store.search(words, limit=RETRIEVE)
        best = max((s for _, s in hits), default=0.0)
        return {rid: (s / best if best > 0 else 0.0) for rid, s in hits}

    def _candidates(self, dense: dict[str, float], words: dict[str, float], query: Query) -> list[str]:
        pool = list(dict.fromkeys([*dense, *words]))
        if len(self.records) <= SCAN_ALL_UP_TO:
            pool += [rid for rid, r in self.records.items() if rid not in pool and self._symptom_in(r, query)]
        return pool

    def _symptom_in(self, record: RecordView, query: Query) -> str | None:
        """The first of the record's symptoms in the log: its anchor first (a substring test), the regex only then."""
        for s in record.symptoms:
            if (self.anchors.get(s) or anchor(s)) in query.flat and compile_symptom(s).search(query.masked):
                return s
        return None

    # -- judging one record ----------------------------------------------------------------

    def _similarity(self, rid: str, dense: dict[str, float], vector: np.ndarray | None) -> float:
        if rid in dense or rid not in self.position or vector is None:
            return dense.get(rid, 0.0)
        return float(self.index.reconstruct(self.position[rid]) @ vector[0])

    def _observe(self, record: RecordView, query: Query, dense: dict[str, float], vector: np.ndarray | None,
                 words: dict[str, float], env: Environment) -> Evidence:
        symptom = self._symptom_in(record, query)
        on_root = bool(symptom and symptom_matches(symptom, query.root_masked))
        hit, missed = _frames(record.frames, query)
        packages, _ = _frames(record.all_packages(), query)
        hints = record.situation or tuple(h for h in record.frames if h.lower() not in _GENERIC_FRAMES)
        return Evidence(
            symptom=symptom,
            on_root=on_root,
            dense=self._similarity(record.id, dense, vector),
            bm25=words.get(record.id, 0.0),
            frames_hit=hit,
            packages_hit=packages,
            frames_missed=missed and bool(query.modules),
            situation=hints,
            situation_seen=situation.seen(hints, query.prefixes, query.raw),
            shared_symptom=bool(symptom) and self.symptom_owners[mask(symptom).lower()] > 1,
            family_member=record.family is not None,
            other_causes=record.other_causes,
            family_head=record.id in self.members,
            beside_failure=record.warning and bool(query.root_masked.strip()) and not on_root,
            verdict=constraints.check(record, env),
        )

    def _to_match(self, j: Judged, env: Environment) -> Match:
        record, e = j.record, j.evidence
        why = scoring.reasons(e) + (("a specific record of this family fits the log better",) if j.outranked else ())
        return Match(
            id=record.id, title=record.title, score=round(j.score, 4), confident=j.confident,
            verdict=e.verdict.verdict, checks=e.verdict.checks, why=why, cause=record.cause,
            fix=record.fix, source=record.source, commands=fixcmd.commands(record, env),
            references=record.references, language=record.language, strength=j.strength,
            specific=self.specifics.get(record.id, ()) if j.confident else (),
        )


@dataclass(frozen=True)
class Judged:
    """A candidate with its calibrated score, raw model output and confidence call."""

    record: RecordView
    evidence: Evidence
    score: float
    strength: float
    confident: bool
    outranked: bool = False   # a generic record whose specific record fits the log better


def _judge(record: RecordView, e: Evidence) -> Judged:
    raw = scoring.raw_probability(e)
    p = scoring.calibrated(raw, scoring.model().get("calibration"))
    return Judged(record, e, p, raw, scoring.is_confident(e, p))


def _families(judged: list[Judged]) -> list[Judged]:
    """Confident answers first, specific before generic. A confident specific record of a family
    outranks its generic record, which then is not called confident."""
    heads = {j.record.family for j in judged if j.confident and j.record.family}
    out = [replace(j, confident=False, outranked=True) if j.confident and j.record.id in heads else j for j in judged]
    # Among confident answers a generic record comes after any more specific one (it is the answer
    # when nothing specific fits).
    return sorted(out, key=lambda j: (not j.confident, j.confident and j.evidence.family_head, -j.score, -j.strength,
                                      j.record.id))


def _specifics(records) -> dict[str, tuple[Specific, ...]]:
    """Generic record id -> its specific records and their signs."""
    out: dict[str, list[Specific]] = {}
    for r in records:
        if r.family:
            out.setdefault(r.family, []).append(Specific(r.id, r.title, r.situation))
    return {head: tuple(members) for head, members in out.items()}


def _frames(names: tuple[str, ...], query: Query) -> tuple[tuple[str, ...], bool]:
    """(hints seen in the log, whether the specific hints were all absent)."""
    hints = tuple(h for h in names if h.lower() not in _GENERIC_FRAMES)
    seen = situation.seen(tuple(dict.fromkeys(hints)), query.prefixes, query.raw)
    return seen, bool(hints) and not seen
