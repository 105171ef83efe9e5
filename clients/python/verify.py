"""Verifies a Customer API webhook (contract 6.4) with the standard library only, and checks the published vectors.

    python3 verify.py [path/to/webhook-signature-vectors.json]

Copy `verify` into a receiver: give it the headers and the raw body bytes exactly as received, before any parsing.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
import sys
import time
from base64 import b64decode
from pathlib import Path

SIGNATURE = re.compile(r"sha256=[0-9a-f]{64}", re.ASCII)
TIMESTAMP = re.compile(r"[0-9]{1,12}", re.ASCII)


def verify(secret: str, timestamp: str | None, signature: str | None, raw_body: bytes,
           now: float | None = None, tolerance: int = 300) -> str | None:
    """None when the delivery is authentic and fresh, else why not (the kit's reasons)."""
    if signature is None:
        return "missing_signature"
    if not SIGNATURE.fullmatch(signature):  # the format fixes the length: 71 characters
        return "malformed_signature"
    if timestamp is None:
        return "missing_timestamp"
    if not TIMESTAMP.fullmatch(timestamp):
        return "malformed_timestamp"
    if abs((time.time() if now is None else now) - int(timestamp)) > tolerance:
        return "timestamp_outside_tolerance"
    digest = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + raw_body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest("sha256=" + digest, signature):  # constant time
        return "signature_mismatch"
    return None


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "spec" / "webhook-signature-vectors.json"
    failures = 0
    for case in json.loads(path.read_text(encoding="utf-8")):
        # Freshness is not part of a case: the current time is the case's timestamp.
        got = verify(case["secret"], case["timestamp"], case["header"], b64decode(case["bodyBase64"]), now=int(case["timestamp"]))
        want = None if case["valid"] else case["reason"]
        ok = got == want and b64decode(case["bodyBase64"]) == case["body"].encode("utf-8")
        failures += not ok
        print(f"{'ok' if ok else 'FAIL'} {case['name']}" + ("" if ok else f": got {got}, want {want}"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
