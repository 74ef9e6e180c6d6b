"""Slack v0 signatures: accepted, rejected, stale, replayed, and the bounded memory of seen ones."""

from __future__ import annotations

import pytest

from tracefix.service.slack_verify import WINDOW_SECONDS, SignatureError, SlackVerifier, sign

BODY = b"token=x&command=%2Ftracefix&text=RuntimeError"


class Clock:
    def __init__(self, now: float = 1_700_000_000):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_slack_documented_example():
    # From https://api.slack.com/authentication/verifying-requests-from-slack
    body = (b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&"
            b"channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&"
            b"response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&"
            b"trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c")
    assert sign("8f742231b10e8888abcd99yyyzzz85a5", "1531420618", body) == \
        "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"


def test_fresh_signature_is_accepted_once():
    clock = Clock()
    verifier = SlackVerifier("s", clock)
    ts = str(int(clock.now))
    verifier.verify(ts, sign("s", ts, BODY), BODY)
    with pytest.raises(SignatureError, match="replayed"):
        verifier.verify(ts, sign("s", ts, BODY), BODY)


@pytest.mark.parametrize("timestamp, signature, message", [
    (None, "v0=ab", "missing"),
    ("1700000000", None, "missing"),
    ("soon", "v0=ab", "not a number"),
    (str(1_700_000_000 - WINDOW_SECONDS - 1), "SIGN", "window"),
    (str(1_700_000_000 + WINDOW_SECONDS + 1), "SIGN", "window"),
    ("1700000000", "v0=" + "0" * 64, "does not match"),
])
def test_bad_requests_are_refused(timestamp, signature, message):
    verifier = SlackVerifier("s", Clock())
    if signature == "SIGN":  # correctly signed, so only the timestamp is wrong
        signature = sign("s", timestamp, BODY)
    with pytest.raises(SignatureError, match=message):
        verifier.verify(timestamp, signature, BODY)


def test_signature_of_another_body_is_refused():
    verifier = SlackVerifier("s", Clock())
    with pytest.raises(SignatureError, match="does not match"):
        verifier.verify("1700000000", sign("s", "1700000000", BODY), BODY + b"&x=1")


def test_memory_is_bounded_and_forgets_what_left_the_window():
    clock = Clock()
    verifier = SlackVerifier("s", clock, max_seen=3)
    for i in range(5):
        body = f"text={i}".encode()
        verifier.verify(str(int(clock.now)), sign("s", str(int(clock.now)), body), body)
    assert len(verifier._seen) == 3
    clock.now += WINDOW_SECONDS + 1
    body = b"text=late"
    verifier.verify(str(int(clock.now)), sign("s", str(int(clock.now)), body), body)
    assert len(verifier._seen) == 1


def test_a_replay_is_refused_by_another_worker_sharing_the_seen_file(tmp_path):
    """Two workers (two verifiers over one file): what one accepted, the other refuses."""
    now = 1_700_000_000
    first = SlackVerifier("secret", clock=lambda: now, seen_path=tmp_path / "seen")
    second = SlackVerifier("secret", clock=lambda: now, seen_path=tmp_path / "seen")
    body, ts = b"text=boom", str(now)
    first.verify(ts, sign("secret", ts, body), body)
    with pytest.raises(SignatureError, match="replayed"):
        second.verify(ts, sign("secret", ts, body), body)
