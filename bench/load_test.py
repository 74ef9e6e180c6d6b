"""Load test of `tracefix serve`: 32 concurrent clients post real logs for 30 s while 20 records are added.

Floor: zero errors, >= 40 requests/s, p99 <= 500 ms, and every added record found afterwards.

    python bench/load_test.py [--seconds 30] [--clients 32] [--workers 2] [--records 20]

Starts its own server on a free 127.0.0.1 port over a temporary database holding the shipped
articles (data/kb), and talks to nothing else. Exit status 1 when a floor is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LOGS = sorted((ROOT / "tests" / "assets" / "kb-logs").glob("*.log"))
TOKEN = "bench-admin-token"
MIN_RPS, MAX_P99_MS = 40.0, 500.0


def build_db(folder: Path) -> Path:
    """A fresh database with every shipped article that currently parses."""
    from tracefix.kb.load import article_paths, load_article
    from tracefix.kb.store import Store
    from tracefix.errors import ArticleError

    records = []
    for path in article_paths([ROOT / "data" / "kb"]):
        try:
            records.append(load_article(path))
        except ArticleError as e:
            print(f"skipped article: {e}", file=sys.stderr)
    db = folder / "kb.db"
    Store(db).ingest(records, origin="user")
    return db


def start_server(db: Path, workers: int, log_path: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRACEFIX_ADMIN_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
    with open(log_path, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "tracefix", "serve", "--port", str(port), "--db", str(db),
                                 "--workers", str(workers)], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"server exited:\n{log_path.read_text()}")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.25)
    proc.kill()
    sys.exit(f"server did not come up:\n{log_path.read_text()}")


def article(n: int) -> tuple[str, str, str]:
    """(id, symptom, markdown) of the n-th record added during the run."""
    rid, symptom = f"bench-added-{n:02d}", f"BenchError{n:02d}: synthetic failure number {n} in the load test"
    text = (f'---\nid: {rid}\ntitle: "{symptom}"\narea: general\npackages: [torch]\nsymptoms:\n  - "{symptom}"\n---\n\n'
            f"# {symptom}\n\n## Cause\n\nAdded during the load test.\n\n## Fix\n\nNothing to fix.\n")
    return rid, symptom, text


def traceback_for(line: str) -> str:
    return f'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    main()\n{line}\n'


async def client_loop(client: httpx.AsyncClient, url: str, logs: list[str], until: float, out: list, errors: list) -> None:
    rng = random.Random()
    while time.monotonic() < until:
        start = time.perf_counter()
        try:
            response = await client.post(url + "/v1/match", json={"log": rng.choice(logs)})
            ok = response.status_code == 200 and "matches" in response.json()
            if not ok:
                errors.append(f"{response.status_code}: {response.text[:200]}")
        except httpx.HTTPError as e:
            errors.append(f"{type(e).__name__}: {e}")
            ok = False
        if ok:
            out.append(time.perf_counter() - start)


async def add_records(client: httpx.AsyncClient, url: str, count: int, seconds: float, errors: list) -> list[float]:
    """Spread `count` POST /v1/records over the run; returns their latencies."""
    latencies = []
    for n in range(count):
        await asyncio.sleep(seconds / (count + 1))
        _, _, text = article(n)
        start = time.perf_counter()
        response = await client.post(url + "/v1/records", content=text.encode(),
                                     headers={"authorization": f"Bearer {TOKEN}", "content-type": "text/markdown"})
        latencies.append(time.perf_counter() - start)
        if response.status_code != 201:
            errors.append(f"add {n}: {response.status_code} {response.text[:200]}")
    return latencies


async def verify_added(url: str, count: int) -> list[str]:
    """Every added record is listed and ranks first for its own failure, on whichever worker answers."""
    missing = []
    async with httpx.AsyncClient(timeout=30) as client:
        listed = {r["id"] for r in (await client.get(url + "/v1/records")).json()["records"]}
        for n in range(count):
            rid, symptom, _ = article(n)
            body = (await client.post(url + "/v1/match", json={"log": traceback_for(symptom)})).json()
            top = body["matches"][0]["id"] if body["matches"] else None
            if rid not in listed or top != rid:
                missing.append(f"{rid} (listed={rid in listed}, top match={top})")
    return missing


async def run(url: str, seconds: float, clients: int, records: int) -> dict:
    logs = [p.read_text(errors="replace") for p in LOGS]
    latencies, errors = [], []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=30, limits=limits) as client, httpx.AsyncClient(timeout=60) as admin:
        await asyncio.gather(*(client_loop(client, url, logs, time.monotonic() + 3, [], []) for _ in range(clients)))  # warm-up
        start = time.monotonic()
        until = start + seconds
        loops = [client_loop(client, url, logs, until, latencies, errors) for _ in range(clients)]
        *_, add_latencies = await asyncio.gather(*loops, add_records(admin, url, records, seconds, errors))
        elapsed = time.monotonic() - start
    return {"latencies": latencies, "errors": errors, "elapsed": elapsed, "add_latencies": add_latencies,
            "missing": await verify_added(url, records), "logs": len(logs)}


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1] if len(values) > 1 else values[0]


def report(r: dict, args) -> bool:
    lat = sorted(r["latencies"])
    rps = len(lat) / r["elapsed"]
    p50, p90, p99 = (percentile(lat, q) * 1000 for q in (50, 90, 99))
    print(f"server: --workers {args.workers}; {args.clients} clients x {args.seconds:.0f} s; {r['logs']} distinct real logs "
          f"(tests/assets/kb-logs); {os.cpu_count()} CPUs")
    print(f"requests ok      {len(lat)}")
    print(f"errors           {len(r['errors'])}" + "".join(f"\n  {e}" for e in r["errors"][:10]))
    print(f"throughput       {rps:.1f} requests/s")
    print(f"latency ms       p50 {p50:.1f}  p90 {p90:.1f}  p99 {p99:.1f}  max {lat[-1] * 1000:.1f}")
    adds = r["add_latencies"]
    print(f"records added    {len(adds)} during the run (POST /v1/records p50 {statistics.median(adds) * 1000:.0f} ms, "
          f"max {max(adds) * 1000:.0f} ms)" if adds else "records added    0")
    print(f"found afterwards {len(adds) - len(r['missing'])}/{len(adds)}" + "".join(f"\n  missing {m}" for m in r["missing"]))
    ok = not r["errors"] and not r["missing"] and rps >= MIN_RPS and p99 <= MAX_P99_MS
    print(f"floor (0 errors, >= {MIN_RPS:.0f} req/s, p99 <= {MAX_P99_MS:.0f} ms, all records found): {'PASS' if ok else 'FAIL'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--records", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tracefix-load-") as tmp:
        db = build_db(Path(tmp))
        proc, url = start_server(db, args.workers, Path(tmp) / "server.log")
        try:
            result = asyncio.run(run(url, args.seconds, args.clients, args.records))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        ok = report(result, args)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
