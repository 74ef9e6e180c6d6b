"""The knowledge base as the matcher needs it at start-up, in a compact file next to the database.

Built from the stored JSON once per change of the records and kept as a pickle beside the
database (`tracefix.records.pickle`), tagged with the store's fingerprint: a different
fingerprint, another tracefix version or an unreadable file means it is rebuilt, so it can never
serve records the database no longer holds. It also carries what the matcher would otherwise
recompute from every symptom at every start (masked forms, literal anchors).
"""

from __future__ import annotations

import json
import os
import pickle
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tracefix import __version__
from tracefix.kb.view import FIELD_NAMES, RecordView
from tracefix.logs.signature import MASK_VERSION, anchor, mask


@dataclass(frozen=True)
class Snapshot:
    records: tuple[RecordView, ...]          # ordered by id
    symptom_owners: Counter                  # masked, lower-cased symptom -> how many records have it
    anchors: dict[str, str]                  # symptom -> its longest literal stretch, lower-cased


def path_for(db_path: Path) -> Path:
    return db_path.with_name(db_path.stem + ".records.pickle")


def build(rows: list[str]) -> Snapshot:
    """From the stored JSON of every record."""
    records = tuple(RecordView.from_json(json.loads(data)) for data in rows)
    symptoms = {s for r in records for s in r.symptoms}
    # Per record: two spellings of one message in a record (straight and curly quotes) are one owner.
    owners = Counter(m for r in records for m in {mask(s).lower() for s in r.symptoms})
    return Snapshot(records, owners, {s: anchor(s) for s in symptoms})


def load(db_path: Path, fingerprint: str) -> Snapshot | None:
    """The cached snapshot when it was made from exactly these records, else None."""
    try:
        with path_for(db_path).open("rb") as f:
            tag, rows, owners, anchors = pickle.load(f)
        if tag != _tag(fingerprint):
            return None
        return Snapshot(tuple(map(RecordView._make, rows)), owners, anchors)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
        return None


def save(db_path: Path, fingerprint: str, snapshot: Snapshot) -> None:
    """Written to a temporary file and renamed; a read-only folder just means no cache."""
    target = path_for(db_path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as f:
            # Plain tuples, not the named tuples: unpickling would call the class once per record.
            rows = [tuple(r) for r in snapshot.records]
            pickle.dump((_tag(fingerprint), rows, snapshot.symptom_owners, snapshot.anchors), f,
                        protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)


def _tag(fingerprint: str) -> tuple:
    # The field list is in the tag: a RecordView of another shape must not be unpickled into this one;
    # the masking version too: anchors made by another mask() would miss.
    return __version__, FIELD_NAMES, MASK_VERSION, fingerprint
