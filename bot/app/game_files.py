"""Signed game files: a file this bot exported carries an HMAC (SHA-256) over all of it, seats included, keyed by
GAME_FILE_KEY. `python -m engine replay` proves a file consistent (its actions reach its recorded state); only the
signature proves it came from this bot unchanged: a file with swapped seats, or re-made with another secret
choice and a recomputed state hash, replays fine and is refused for its signature.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

SIGNATURE = "signature"


def _canonical(document: dict[str, Any]) -> bytes:
    """The file's content as signed: every field but the signature, in one fixed spelling."""
    unsigned = {key: value for key, value in document.items() if key != SIGNATURE}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign(document: dict[str, Any], key: bytes) -> dict[str, Any]:
    return {**document, SIGNATURE: hmac.new(key, _canonical(document), hashlib.sha256).hexdigest()}


def signature_holds(text: str, key: bytes) -> bool:
    """Whether the file (as text) carries this bot's signature over its content."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return False
    if not isinstance(document, dict) or not isinstance(document.get(SIGNATURE), str):
        return False
    expected = hmac.new(key, _canonical(document), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, document[SIGNATURE])
