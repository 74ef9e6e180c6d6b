"""`RecordView`: a stored record as the query path reads it.

Records are validated once, at ingest (`kb.record.Record`, pydantic). Reading them back for every
query through the validator again cost more than the model itself at start-up, so the matcher and
the renderers read this plain named tuple, built straight from the stored JSON. It has the
same fields as `Record` (a test keeps the two in step). A named tuple, not a frozen dataclass:
building 100,000 of them at start-up costs a fifth of the time.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

_EMPTY: Mapping[str, str] = MappingProxyType({})   # the shared default: read-only, so no record can change it for the others


class RecordView(NamedTuple):
    id: str
    title: str
    symptoms: tuple[str, ...]
    frames: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    area: str = "general"
    cause: str = ""
    fix: str = ""
    affected: Mapping[str, str] = _EMPTY
    fixed: Mapping[str, str] = _EMPTY
    works: Mapping[str, str] = _EMPTY
    environment: tuple[str, ...] = ()
    situation: tuple[str, ...] = ()
    family: str | None = None
    warning: bool = False
    other_causes: bool = False
    references: tuple[str, ...] = ()
    language: str = "en"
    translated_from: str | None = None
    source: str = ""
    provenance: Mapping[str, str] = _EMPTY

    @classmethod
    def from_json(cls, data: dict) -> RecordView:
        """From `Record.model_dump(mode="json")`: lists back to tuples; unknown keys ignored."""
        return cls(**{name: tuple(data[name]) if isinstance(data.get(name), list) else data[name]
                      for name in FIELD_NAMES if name in data})

    def all_packages(self) -> tuple[str, ...]:
        return all_packages(self)

    def to_dict(self) -> dict:
        """The stored JSON shape (`Record.model_dump(mode="json")`): the API returns it as is."""
        return {name: list(value) if isinstance(value, tuple) else dict(value) if isinstance(value, Mapping) else value
                for name in FIELD_NAMES for value in [getattr(self, name)]}


FIELD_NAMES = RecordView._fields


def all_packages(record) -> tuple[str, ...]:
    """Packages named anywhere in a record: listed, or in a version range."""
    names = [*record.packages, *record.affected, *record.fixed, *record.works]
    return tuple(dict.fromkeys(names))
