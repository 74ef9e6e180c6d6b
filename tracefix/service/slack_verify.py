"""Slack request signing (v0): HMAC-SHA256 of `v0:{timestamp}:{raw body}`, a 5-minute window,
and a bounded memory of signatures already seen, so a captured request cannot be replayed.

NOTE: the scheme is https://api.slack.com/authentication/verifying-requests-from-slack. The service
runs one worker per core, so the seen set lives in a small SQLite file beside the database, shared
by every worker: a replay landing on another worker is refused too. Without a file (unit tests, a
single process) it is kept in memory.
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

WINDOW_SECONDS = 5 * 60
MAX_SEEN = 10_000


class SignatureError(Exception):
    """Why a request is refused; str() is safe to show to the caller."""


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The X-Slack-Signature value Slack would send.

    >>> sign("s", "1", b"a=b")[:3]
    'v0='
    """
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


class SlackVerifier:
    """Checks signatures; remembers the valid ones it accepted until they leave the window."""

    def __init__(self, secret: str, clock: Callable[[], float] = time.time, max_seen: int = MAX_SEEN,
                 seen_path: Path | None = None):
        self.secret, self.clock, self.max_seen = secret, clock, max_seen
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()
        self._db = _open_seen(seen_path) if seen_path else None

    def verify(self, timestamp: str | None, signature: str | None, body: bytes) -> None:
        """Raise SignatureError unless the request is signed, fresh and new."""
        if not timestamp or not signature:
            raise SignatureError("missing X-Slack-Request-Timestamp or X-Slack-Signature header")
        try:
            sent = int(timestamp)
        except ValueError:
            raise SignatureError("X-Slack-Request-Timestamp is not a number") from None
        now = self.clock()
        if abs(now - sent) > WINDOW_SECONDS:
            raise SignatureError("request timestamp is outside the 5-minute window (replayed or clock skew)")
        if not hmac.compare_digest(sign(self.secret, timestamp, body), signature):
            raise SignatureError("signature does not match")
        self._remember(signature, now)

    def _remember(self, signature: str, now: float) -> None:
        if self._db is not None:
            return self._remember_shared(signature, now)
        with self._lock:
            self._forget_old(now)
            if signature in self._seen:
                raise SignatureError("request already seen (replayed)")
            self._seen[signature] = now
            while len(self._seen) > self.max_seen:
                self._seen.popitem(last=False)

    def _forget_old(self, now: float) -> None:
        while self._seen:
            oldest, seen_at = next(iter(self._seen.items()))
            if now - seen_at <= WINDOW_SECONDS:
                return
            del self._seen[oldest]

    def _remember_shared(self, signature: str, now: float) -> None:
        """One transaction: drop what left the window, then insert; a signature already there is a replay."""
        with self._lock, self._db:
            self._db.execute("delete from seen where at < ?", (now - WINDOW_SECONDS,))
            try:
                self._db.execute("insert into seen (signature, at) values (?, ?)", (signature, now))
            except sqlite3.IntegrityError:
                raise SignatureError("request already seen (replayed)") from None


def _open_seen(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=10, check_same_thread=False, isolation_level="IMMEDIATE")
    db.execute("pragma journal_mode=wal")
    db.execute("create table if not exists seen (signature text primary key, at real not null)")
    db.commit()
    return db
