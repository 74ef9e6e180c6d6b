"""How many shipped records state a sourced version range, and which ones do not.

    python bench/kb_ranges.py [data/kb]

A record counts when it states an `affected` or `fixed` range (a `works` pin alone does not rule a
version in or out of the cause). Where each range comes from is in data/kb-ranges.tsv; this script
also lists records with a range but no row there, so an unsourced range cannot slip in unnoticed.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from tracefix.kb.load import article_paths, load_article

ROOT = Path(__file__).resolve().parent.parent


def sourced_ids(table: Path) -> set[str]:
    with table.open(encoding="utf-8", newline="") as handle:
        return {row["record"] for row in csv.DictReader(handle, delimiter="\t")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kb", nargs="?", default=str(ROOT / "data" / "kb"))
    parser.add_argument("--table", default=str(ROOT / "data" / "kb-ranges.tsv"))
    args = parser.parse_args()

    records = [load_article(path) for path in article_paths([args.kb])]
    ranged = [r.id for r in records if r.affected or r.fixed]
    unsourced = sorted(set(ranged) - sourced_ids(Path(args.table)))
    print(f"records                       {len(records)}")
    print(f"with an affected/fixed range  {len(ranged)} ({len(ranged) / len(records):.1%})")
    print(f"ranged, no row in the table   {', '.join(unsourced) or 'none'}")


if __name__ == "__main__":
    main()
