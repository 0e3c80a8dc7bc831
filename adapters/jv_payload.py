"""jeuxvideo.com's embedded JSON (FORUMS.md §3.3): `window.jvc.forumsAppPayload="…"`, found in
the page's own script and decoded (base64 of gzip'd JSON since June 2026; plain base64 JSON and
raw JSON for earlier variants). The reading of what it holds is adapters/jv.py's."""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import re
from dataclasses import dataclass
from typing import Any

from tally.model import msg

_PAYLOAD = re.compile(rb"forumsAppPayload\s*=\s*")
_PAYLOAD_NAME = b"forumsAppPayload"
# A forum's page of topics (its payload lists `listTopics`, no `listMessage`: the real forum page
# of FranckRJ/RespawnIRC tests/fixtures/forum.html.gz), saved or fetched in place of a topic.
FORUM_LIST = msg("forumsAppPayload holds a forum's list of topics (listTopics), not a topic's "
                 "messages")


try:  # orjson reads a page's payload (about 130 KiB of JSON) in 60% of json's time (issue 15)
    import orjson
except ImportError:  # declared in pyproject.toml; json reads the same
    orjson = None  # type: ignore[assignment]


def _loads(text: bytes | str) -> Any:
    """The JSON value of `text`: orjson's reading, or json's where orjson refuses what json
    takes (NaN, integers beyond 64 bits), so the two read the same payloads."""
    if orjson is not None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


@dataclass(frozen=True, slots=True)
class Payload:
    data: dict[str, Any]
    form: str  # "gzip+base64", "base64", "json": for the audit


def _decode_payload_string(text: str) -> Payload:
    stripped = text.strip()
    if stripped.startswith("{"):
        return Payload(_loads(stripped), "json")
    compact = "".join(stripped.split()).replace("-", "+").replace("_", "/")
    raw = base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True)
    if raw[:2] == b"\x1f\x8b":
        return Payload(_loads(gzip.decompress(raw)), "gzip+base64")
    return Payload(_loads(raw), "base64")


# The stock form, a JS string of bare base64: its JSON reading is the same text, got without
# decoding the rest of the page.
_BASE64_STRING = re.compile(rb'"([A-Za-z0-9+/=]*)"')


def _payload_value(data: bytes, start: int) -> Any:
    """The JS value at `start`: a string literal or a bare object."""
    plain = _BASE64_STRING.match(data, start)
    if plain:
        return plain.group(1).decode("ascii")
    value, _ = json.JSONDecoder().raw_decode(data[start:].decode("utf-8", "replace"))
    return value


def _payload_assignment(data: bytes) -> re.Match[bytes] | None:
    """`forumsAppPayload = ` in the page's script, not in a member's message that quotes it
    (a message's "<" is escaped, so only the page's own script holds the name in a script)."""
    # Plain finds from the end, where the script is (after the messages): a regex scan of the
    # whole page costs more than parsing it.
    start = data.rfind(_PAYLOAD_NAME)
    while start >= 0:
        found = _PAYLOAD.match(data, start) if _in_script(data, start) else None
        if found:
            return found
        start = data.rfind(_PAYLOAD_NAME, 0, start)
    return None


def _in_script(data: bytes, at: int) -> bool:
    """Whether data[at] is inside a <script> element: no end tag after the last start tag.
    Lower case first, as JV writes it; upper case only when that fails."""
    opened = data.rfind(b"<script", 0, at)
    if opened >= 0 and data.find(b"</script", opened, at) < 0:
        return True
    opened = max(opened, data.rfind(b"<SCRIPT", 0, at))
    return opened >= 0 and data.find(b"</script", opened, at) < 0 and \
        data.find(b"</SCRIPT", opened, at) < 0


def read_payload(data: bytes) -> tuple[Payload | None, str | None]:
    """The page's `forumsAppPayload`, or None; the second value says why it could not be read."""
    found = _payload_assignment(data)
    if not found:
        return None, None
    try:
        value = _payload_value(data, found.end())
        payload = Payload(value, "json") if isinstance(value, dict) else _decode_payload_string(value)
    except (ValueError, binascii.Error, OSError, EOFError, TypeError) as exc:
        return None, msg("forumsAppPayload unreadable ({error}); HTML used",
                         error=exc.__class__.__name__)
    if isinstance(payload.data, dict) and isinstance(payload.data.get("listTopics"), list) \
            and "listMessage" not in payload.data:
        return None, FORUM_LIST
    if not isinstance(payload.data, dict) or not isinstance(payload.data.get("listMessage"), list):
        return None, msg("forumsAppPayload holds no listMessage; HTML used")
    return payload, None
