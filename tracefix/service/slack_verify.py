"""Slack request signing (v0): HMAC-SHA256 of `v0:{timestamp}:{raw body}`, a 5-minute window,
and a bounded memory of signatures already seen, so a captured request cannot be replayed.

NOTE: the scheme is https://api.slack.com/authentication/verifying-requests-from-slack. The seen
set lives in one process; with several workers a replay landing on another worker within the
window is still refused only by the window (each worker keeps its own set).
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

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

    def __init__(self, secret: str, clock: Callable[[], float] = time.time, max_seen: int = MAX_SEEN):
        self.secret, self.clock, self.max_seen = secret, clock, max_seen
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

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
