"""Load test of `tracefix serve`, started with its default flags, against the model's own ceiling.

    python bench/load_test.py [--seconds 30] [--clients 16] [--records 20]

The ceiling is what the machine can embed: cores / the median model time of one query (the query
texts of the real logs in tests/assets/kb-logs, one ONNX thread, as each service request runs),
measured in this run. Two phases of `--seconds` each, `--clients` concurrent clients:
- fresh: every request is a real log whose error line carries a new job number, so its query text
  is new and the model runs for every request; records are added under load meanwhile;
- repeated: half the requests repeat an earlier request's error with other noise around it
  (progress bars, timestamps), which the service answers from its query-embedding cache.
Floors: fresh throughput >= 0.9 x the ceiling, p99 <= 1 s, zero errors, every added record found;
repeated throughput above the ceiling. Starts its own server on a free 127.0.0.1 port over a
temporary database of the shipped articles and talks to nothing else. Exit status 1 on a miss.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
MIN_CEILING_SHARE, MAX_P99_MS = 0.9, 1000.0
NOISE = ("Epoch 1:  37%|###7      | 370/1000 [01:02<01:46,  5.93it/s, loss=2.31]\n"
         "[2024-06-0{n} 1{n}:2{n}:11,402] [INFO] [logging.py:96:log_dist] [Rank 0] step={n}0, skipped=0\n")


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


def query_texts(logs: list[str]) -> list[str]:
    from tracefix.logs.report import read_log
    from tracefix.match.matcher import build_query

    return [build_query(read_log(log)).text for log in logs]


def model_ceiling(logs: list[str]) -> tuple[float, float]:
    """(requests/s the cores can embed, median ms of one query's model run), one ONNX thread each."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["TRACEFIX_ONNX_THREADS"] = "1"
    from tracefix.indexer.embed import make_embedder
    from tracefix.indexer.model import resolve_model

    embedder = make_embedder(resolve_model(None), "onnx")
    texts = query_texts(logs)
    times = []
    for text in texts * 3:
        start = time.perf_counter()
        embedder.embed([text])
        times.append(time.perf_counter() - start)
    median = statistics.median(times[len(texts):])
    return (os.cpu_count() or 1) / median, median * 1000


MODEL_ONLY = """
import os, sys, time
os.environ["TRACEFIX_ONNX_THREADS"] = "1"
from tracefix.indexer.embed import make_embedder
from tracefix.indexer.model import resolve_model
embedder = make_embedder(resolve_model(None), "onnx")
texts = sys.stdin.read().split("\\x00")
for text in texts[:5]:
    embedder.embed([text])
done, start = 0, time.perf_counter()
while time.perf_counter() - start < float(sys.argv[1]):
    embedder.embed([texts[done % len(texts)] + str(done)])
    done += 1
print(done / (time.perf_counter() - start))
"""


def model_only_rate(texts: list[str], seconds: float = 8.0) -> float:
    """Queries/s of the model alone, one process per core running at once: what the machine can
    really embed in parallel (cores share caches and memory bandwidth), with no HTTP and no matching."""
    procs = [subprocess.Popen([sys.executable, "-c", MODEL_ONLY, str(seconds)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
             for _ in range(os.cpu_count() or 1)]
    payload = "\x00".join(texts)
    return sum(float(p.communicate(payload)[0]) for p in procs)


def root_head(log: str) -> str:
    """The start of the log's root error message: where a job number goes."""
    from tracefix.logs.report import read_log

    root = read_log(log).root
    return root.message.split("\n")[0][:40] if root else ""


def with_job(log: str, job: int, head: str | None = None) -> str:
    """The log with a job number at the start of its root error message, on every line that prints
    it (ranks print the same error): a new query text, the same failure. The embedded text is cut
    at a few hundred characters, so the number goes first."""
    head = root_head(log) if head is None else head
    if not head:
        return f"{log.rstrip()} [job {job}]\n"
    return log.replace(head, f"[job {job}] {head}")


def takes_a_job_number(log: str) -> bool:
    """Whether the job number reaches the embedded query text (a few logs' roots are not plain lines)."""
    from tracefix.logs.report import read_log
    from tracefix.match.matcher import build_query

    return build_query(read_log(with_job(log, 1))).text != build_query(read_log(with_job(log, 2))).text


def start_server(db: Path, log_path: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRACEFIX_ADMIN_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
    with open(log_path, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "tracefix", "serve", "--port", str(port), "--db", str(db)], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
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


class Requests:
    """The logs the clients send: each new (a fresh job number), or in the repeated phase, half of
    them an earlier request's log with other noise prepended."""

    def __init__(self, logs: list[str], repeat_share: float):
        self.logs, self.repeat_share = logs, repeat_share
        self.heads = [root_head(log) for log in logs]  # parsed once here: the clients' loop stays cheap
        self.sent: list[str] = []
        self.rng = random.Random(11)

    def next(self) -> str:
        if self.sent and self.rng.random() < self.repeat_share:
            return NOISE.format(n=self.rng.randint(1, 9)) + self.rng.choice(self.sent)
        n = self.rng.randrange(len(self.logs))
        log = with_job(self.logs[n], len(self.sent) + self.rng.randint(10**6, 10**7), self.heads[n])
        self.sent.append(log)
        return log


class Connection:
    """One keep-alive HTTP/1.1 connection with requests written by hand: the load generator shares
    the machine's cores with the server, so it must cost next to nothing per request (an HTTP
    client library costs about as much as the server's own work)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = (f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        self.writer.write(head + body)
        status_line = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return int(status_line.split()[1]), await self.reader.readexactly(length)


async def client_loop(url: str, requests: Requests, until: float, out: list, errors: list) -> None:
    host, port = url.removeprefix("http://").split(":")
    connection = Connection(host, int(port))
    while time.monotonic() < until:
        body = json.dumps({"log": requests.next()}).encode()
        start = time.perf_counter()
        try:
            status, answer = await connection.post("/v1/match", body)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as e:
            errors.append(f"{type(e).__name__}: {e}")
            connection = Connection(host, int(port))
            continue
        if status == 200 and b'"matches"' in answer:
            out.append(time.perf_counter() - start)
        else:
            errors.append(f"{status}: {answer[:200]!r}")


async def add_records(client: httpx.AsyncClient, url: str, count: int, seconds: float, errors: list) -> list[float]:
    """Spread `count` POST /v1/records over the run; returns their latencies."""
    latencies: list[float] = []
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


async def phase(url: str, requests: Requests, seconds: float, clients: int, records: int) -> dict:
    latencies, errors = [], []
    async with httpx.AsyncClient(timeout=60) as admin:
        warm = Requests(requests.logs[:5], 0.0)
        await asyncio.gather(*(client_loop(url, warm, time.monotonic() + 3, [], []) for _ in range(clients)))
        start = time.monotonic()
        until = start + seconds
        loops = [client_loop(url, requests, until, latencies, errors) for _ in range(clients)]
        *_, add_latencies = await asyncio.gather(*loops, add_records(admin, url, records, seconds, errors))
        elapsed = time.monotonic() - start
    return {"latencies": latencies, "errors": errors, "elapsed": elapsed, "add_latencies": add_latencies,
            "missing": await verify_added(url, records) if records else []}


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1] if len(values) > 1 else values[0]


def report(name: str, r: dict, ceiling: float, floor_share: float | None, above_ceiling: bool) -> bool:
    lat = sorted(r["latencies"])
    rps = len(lat) / r["elapsed"]
    p50, p90, p99 = (percentile(lat, q) * 1000 for q in (50, 90, 99))
    print(f"[{name}] ok {len(lat)}, errors {len(r['errors'])}, {rps:.1f} requests/s = {rps / ceiling:.2f} x the ceiling; "
          f"latency ms p50 {p50:.0f} p90 {p90:.0f} p99 {p99:.0f} max {lat[-1] * 1000:.0f}")
    for e in r["errors"][:10]:
        print(f"  error: {e}")
    adds = r["add_latencies"]
    if adds:
        print(f"[{name}] {len(adds)} records added under load (POST p50 {statistics.median(adds) * 1000:.0f} ms, max "
              f"{max(adds) * 1000:.0f} ms); found afterwards {len(adds) - len(r['missing'])}/{len(adds)}"
              + "".join(f"\n  missing {m}" for m in r["missing"]))
    ok = not r["errors"] and not r["missing"] and p99 <= MAX_P99_MS
    ok = ok and (rps >= floor_share * ceiling if floor_share else True) and (rps > ceiling if above_ceiling else True)
    wanted = f">= {floor_share} x ceiling" if floor_share else "> ceiling"
    print(f"[{name}] floor (0 errors, {wanted}, p99 <= {MAX_P99_MS:.0f} ms): {'PASS' if ok else 'FAIL'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--records", type=int, default=20)
    args = parser.parse_args()
    logs = [log for log in (p.read_text(errors="replace") for p in LOGS) if takes_a_job_number(log)]
    with tempfile.TemporaryDirectory(prefix="tracefix-load-") as tmp:
        db = build_db(Path(tmp))
        proc, url = start_server(db, Path(tmp) / "server.log")
        try:
            ceiling, model_ms = model_ceiling(logs)  # measured while the idle server waits: same machine, same run
            print(f"server: default flags; {args.clients} clients x {args.seconds:.0f} s per phase; {len(logs)} real logs; "
                  f"{os.cpu_count()} CPUs; model {model_ms:.1f} ms per query -> ceiling {ceiling:.1f} requests/s")
            parallel = model_only_rate(query_texts(logs))
            print(f"model alone, one process per core at once: {parallel:.1f} queries/s = {parallel / ceiling:.2f} x the ceiling "
                  "(what the cores deliver in parallel)")
            fresh = asyncio.run(phase(url, Requests(logs, 0.0), args.seconds, args.clients, args.records))
            repeated = asyncio.run(phase(url, Requests(logs, 0.5), args.seconds, args.clients, 0))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    ok = report("fresh", fresh, ceiling, MIN_CEILING_SHARE, False)
    ok = report("repeated", repeated, ceiling, None, True) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
