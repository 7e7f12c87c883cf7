"""`mentat backup FILE`: a consistent copy of the SQLite store, safe to take while the bot runs.

The bot keeps the file open in WAL mode, so copying the file (and its -wal) with `cp` may catch a transaction
half written. SQLite's online backup API reads the database inside one read transaction of a connection of its
own: the copy is the database as one commit left it, and the bot's writers are not held up (WAL lets one writer
go on beside readers). The copy is written to a temporary file beside FILE, checked (`PRAGMA integrity_check`),
made a plain single file (journal mode DELETE, no -wal beside it) and only then renamed to FILE.

With PostgreSQL the same job is pg_dump's (bot/__main__.py says how to run it).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path


class BackupError(Exception):
    """The backup was not made; the message says why and what to do."""


@dataclass(frozen=True)
class BackupDone:
    path: Path
    size: int  # bytes
    games: int


def backup_sqlite(database: Path, target: Path, *, force: bool = False) -> BackupDone:
    """Copy the SQLite database `database` to `target`, consistently, while other connections (another process)
    may be writing to it. Refuses to overwrite `target` unless `force`; a failed copy leaves `target` as it was."""
    if not database.is_file():
        raise BackupError(f"there is no database at {database} (DATABASE_PATH): nothing to back up")
    if target.exists() and not force:
        raise BackupError(f"{target} already exists; choose another file, or pass --force to overwrite it")
    if target.resolve() == database.resolve():
        raise BackupError(f"{target} is the database itself; choose another file")
    if not target.parent.is_dir():
        raise BackupError(f"the folder {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.partial")
    try:
        # mode=rw: never create a database where there was none (a mistyped DATABASE_PATH)
        source = sqlite3.connect(f"file:{database}?mode=rw", uri=True)
        try:
            with contextlib.closing(sqlite3.connect(partial)) as copy:
                source.backup(copy)  # all pages in one step: one read transaction, one commit's state
                copy.execute("PRAGMA journal_mode = DELETE")
                problems = [problem for (problem,) in copy.execute("PRAGMA integrity_check")]
                if problems != ["ok"]:
                    raise BackupError(f"the copy failed SQLite's integrity check, so the database itself is damaged "
                                      f"({problems[0].splitlines()[-1]}; {len(problems)} problems); {target} is "
                                      "unchanged")
                [(games,)] = copy.execute("SELECT count(*) FROM games").fetchall()
        finally:
            source.close()
        with open(partial, "rb") as written:
            os.fsync(written.fileno())
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as error:
        raise BackupError(f"cannot copy {database} to {target}: {error}") from None
    finally:
        partial.unlink(missing_ok=True)
    return BackupDone(target, target.stat().st_size, games)
