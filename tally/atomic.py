"""Writing a file whole or not at all: an interrupted run leaves the old file, never half of
the new one (the game file `tally init` writes, the page `tally report` writes)."""

from __future__ import annotations

from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Write beside the target, then rename: an interrupted run leaves nothing half-written."""
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
