"""Share of sampled failure threads whose cause has a shipped record.

    python bench/kb_breadth.py [data/kb-breadth.tsv]

data/kb-breadth.tsv groups every harvested thread by root cause (`threads` starts with the count);
a group counts as covered when its `record` column names at least one record in data/kb ("none: why"
otherwise). Threads with no failure in them (pull requests, questions: "none: no failure log") have no
cause to cover; the share is given over all threads and over failure threads. Ids the table names but
the knowledge base lacks are listed, so a renamed record shows up.
"""

from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEPARATOR = re.compile(r"[\s,/]+")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("table", nargs="?", default=str(ROOT / "data" / "kb-breadth.tsv"))
    parser.add_argument("--kb", default=str(ROOT / "data" / "kb"))
    args = parser.parse_args()

    shipped = {path.stem for path in Path(args.kb).glob("*.md")}
    threads = covered = no_failure = 0
    missing: set[str] = set()
    for row in csv.DictReader(Path(args.table).open(encoding="utf-8", newline=""), delimiter="\t"):
        count = int(row["threads"].split(":", 1)[0])
        threads += count
        if row["record"].startswith("none"):
            no_failure += count if row["record"].startswith("none: no failure log") else 0
            continue
        named = {token for token in SEPARATOR.split(row["record"]) if token}
        missing |= named - shipped
        covered += count if named & shipped else 0
    print(f"threads sampled           {threads}")
    failures = threads - no_failure
    print(f"with a failure in them    {failures} (pull requests and questions left out)")
    print(f"cause has a record        {covered}: {covered / threads:.1%} of all, {covered / failures:.1%} of failure threads")
    print(f"named, not in the kb      {', '.join(sorted(missing)) or 'none'}")


if __name__ == "__main__":
    main()
