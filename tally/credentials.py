"""The bot's credentials and its session cookies (issue 5).

The account comes from the game file (`posting.account`) or TALLY_ACCOUNT; the password never
from the game file: TALLY_PASSWORD, else the system keyring (service "tally:<host>" first, then
"tally"). Neither is ever printed, logged or stored by tally.

The session cookies are kept between runs in `.tally/<game>.cookies` beside the snapshot store,
mode 0600, written atomically; never in the snapshot store (fetch.KEPT_HEADERS has no
Set-Cookie) and never in a message. A run reuses them until the forum says the session expired.
On an engine tally never logs in to (JV: Replier.password_login False) the GM supplies the
cookie (`supply_cookies`, from TALLY_COOKIE), and the file is never deleted by a run.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import requests
from requests.cookies import create_cookie

from tally.adapters.reply import Credentials
from tally.errors import InputError, LoginError

log = logging.getLogger(__name__)

SERVICE = "tally"
COOKIE_ENV = "TALLY_COOKIE"
_COOKIE_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an RFC 6265 token


def account_of(configured: str | None, game: str) -> str:
    account = configured or os.environ.get("TALLY_ACCOUNT")
    if not account:
        raise LoginError(f"{game}: no bot account: set posting.account in the game file or "
                         "TALLY_ACCOUNT")
    return account


def password_for(account: str, host: str) -> str:
    """TALLY_PASSWORD, else the keyring ("tally:<host>", then "tally"); a LoginError if none."""
    password = os.environ.get("TALLY_PASSWORD")
    if password:
        return password
    for service in (f"{SERVICE}:{host}", SERVICE):
        found = _keyring_password(service, account)
        if found:
            return found
    raise LoginError(f"no password for the bot account {account}: set TALLY_PASSWORD or run "
                     f"`keyring set {SERVICE} {account}`")


def _keyring_password(service: str, account: str) -> str | None:
    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:  # pragma: no cover - keyring is a dependency
        return None
    try:
        return keyring.get_password(service, account)
    except KeyringError as exc:  # no backend on a headless server: the environment must do
        log.info("keyring unavailable (%s); use TALLY_PASSWORD", type(exc).__name__)
        return None


def credentials(configured: str | None, game: str, host: str) -> Credentials:
    account = account_of(configured, game)
    return Credentials(account, password_for(account, host))


# ---------------------------------------------------------------------------------------------
# The cookie file


def cookie_path_of(store_path: Path) -> Path:
    """`.tally/<game>.cookies` beside `.tally/<game>.sqlite`."""
    return store_path.with_suffix(".cookies")


def load_cookies(path: Path, session: requests.Session) -> int:
    """Put the saved cookies into the session; returns how many (0: none saved)."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return 0
    except (OSError, ValueError):
        log.info("cookie file %s unreadable; logging in afresh", path)
        return 0
    for row in rows:
        session.cookies.set_cookie(create_cookie(
            row["name"], row["value"], domain=row.get("domain", ""), path=row.get("path", "/"),
            expires=row.get("expires"), secure=bool(row.get("secure"))))
    session.cookies.clear_expired_cookies()
    return len(session.cookies)


def save_cookies(path: Path, session: requests.Session) -> None:
    """Write the session's cookies, mode 0600, through a temporary file (never half-written)."""
    rows = [{"name": c.name, "value": c.value, "domain": c.domain, "path": c.path,
             "expires": c.expires, "secure": c.secure} for c in session.cookies]
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(rows, stream)
        os.chmod(temp, 0o600)  # a umask cannot widen it, an older file's mode does not carry over
        os.replace(temp, path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise InputError(f"cookie file {path}: {exc.strerror or exc}") from None


def forget_cookies(path: Path, session: requests.Session) -> None:
    session.cookies.clear()
    path.unlink(missing_ok=True)


def supply_cookies(path: Path, header: str | None, host: str) -> list[str]:
    """The GM's session cookie for `host`, given as a browser's Cookie header ("name=value;
    name2=value2", an optional "Cookie:" before it), written as the cookie file (0600, replacing
    it). Returns the cookies' names; a value never reaches a message."""
    if not header or not header.strip():
        raise InputError(f"{COOKIE_ENV} is not set: put the bot's session cookie in it as a "
                         "browser sends it, e.g. TALLY_COOKIE='name=value; name2=value2'")
    text = header.strip()
    if text[:7].lower() == "cookie:":
        text = text[7:]
    session = requests.Session()
    names: list[str] = []
    for number, part in enumerate((p.strip() for p in text.split(";")), start=1):
        if not part:
            continue
        name, equals, value = part.partition("=")
        name, value = name.strip(), value.strip().strip('"')
        if not equals or not _COOKIE_NAME.fullmatch(name) or not value:
            raise InputError(f"{COOKIE_ENV}: part {number} is not name=value (expected "
                             "'name=value; name2=value2')")
        session.cookies.set_cookie(create_cookie(name, value, domain=host, path="/"))
        names.append(name)
    if not names:
        raise InputError(f"{COOKIE_ENV} holds no cookie (expected 'name=value; name2=value2')")
    save_cookies(path, session)
    return list(dict.fromkeys(names))
