"""A throwaway PostgreSQL server, for the tests (tests/postgres_plugin.py) and the benchmark.

initdb into a temporary folder, then `postgres` on a free port of 127.0.0.1 with trust authentication. The
caller stops it; should the caller be killed instead, the server gets SIGINT (a fast shutdown) from the kernel
as its parent dies (PR_SET_PDEATHSIG), so none is left running, and the next start removes the folder. Run as
root (CI), initdb and postgres, which refuse root, run as the `postgres` system user in a folder it owns.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import asyncpg

SUPERUSER = "mentat"
FOLDER_PREFIX = "mentat-pg-"
OWNER_FILE = "owner.pid"  # the pid of the test run that started the server in this folder
START_PATIENCE = 30.0  # seconds
INSTALL_HINT = ("install the PostgreSQL server (Debian: apt-get install postgresql); initdb and postgres are "
                "looked for on the PATH, then in /usr/lib/postgresql/<version>/bin")
PR_SET_PDEATHSIG = 1
BASE_SETTINGS = {"listen_addresses": "127.0.0.1", "max_connections": "200", "log_min_messages": "warning"}
# For the tests, speed, not durability: the server is thrown away. (A killed client loses no committed row:
# the server keeps running.) The benchmark keeps PostgreSQL's durable defaults.
FAST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


class ServerUnavailable(Exception):
    """No PostgreSQL server can be started here: the message says why and how to get one."""


def find_programs() -> dict[str, str]:
    """initdb and postgres: from the PATH, else from Debian's versioned folders (the newest)."""
    found = {name: shutil.which(name) for name in ("initdb", "postgres")}
    if all(found.values()):
        return found
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: p.parent.name, reverse=True):
        if all((folder / name).is_file() for name in found):
            return {name: str(folder / name) for name in found}
    missing = ", ".join(name for name, path in found.items() if path is None)
    raise ServerUnavailable(f"{missing} not found: {INSTALL_HINT}")


def _run_as() -> str | None:
    """The user to run the server as: `postgres` when we are root (it refuses root), else ourselves."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise ServerUnavailable("running as root and there is no `postgres` user to run the server as; "
                                + INSTALL_HINT) from None
    return "postgres"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _die_with_parent(parent: int) -> None:
    """In the server's process, before exec: SIGINT when the test run dies, and exit if it already has."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGINT)
    if os.getppid() != parent:
        os._exit(1)


def _remove_abandoned_folders() -> None:
    """Folders of earlier runs that were killed (their server died with them; the folder stayed)."""
    for folder in Path(tempfile.gettempdir()).glob(FOLDER_PREFIX + "*"):
        try:
            os.kill(int((folder / OWNER_FILE).read_text()), 0)
        except ProcessLookupError:
            if not (folder / "data" / "postmaster.pid").exists():
                shutil.rmtree(folder, ignore_errors=True)
        except (OSError, ValueError):
            continue


@dataclass
class PostgresServer:
    folder: Path
    port: int
    process: subprocess.Popen

    @property
    def url(self) -> str:
        return self.url_of("postgres")

    def url_of(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    @classmethod
    def start(cls, settings: dict[str, str] = FAST_SETTINGS) -> PostgresServer:
        programs = find_programs()
        user = _run_as()
        _remove_abandoned_folders()
        folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
        (folder / OWNER_FILE).write_text(str(os.getpid()))
        if user is not None:
            shutil.chown(folder, user)
        as_user = {"user": user} if user is not None else {}
        data, log = folder / "data", folder / "server.log"
        initdb = subprocess.run([programs["initdb"], "-D", str(data), "-A", "trust", "-U", SUPERUSER, "-E", "UTF8",
                                 "--no-sync", "--no-instructions"], capture_output=True, text=True, cwd=folder,
                                **as_user)
        if initdb.returncode != 0:
            shutil.rmtree(folder, ignore_errors=True)
            raise ServerUnavailable(f"initdb failed: {initdb.stderr.strip() or initdb.stdout.strip()}")
        port = _free_port()
        options = [arg for name, value in (BASE_SETTINGS | settings).items() for arg in ("-c", f"{name}={value}")]
        parent = os.getpid()
        with log.open("wb") as log_file:
            process = subprocess.Popen(
                [programs["postgres"], "-D", str(data), "-p", str(port), "-k", str(folder), *options],
                stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=folder,
                preexec_fn=lambda: _die_with_parent(parent), **as_user)
        server = cls(folder, port, process)
        server._wait_until_ready(log)
        return server

    def _wait_until_ready(self, log: Path) -> None:
        deadline = time.monotonic() + START_PATIENCE
        status = self.folder / "data" / "postmaster.pid"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.stop()
                raise ServerUnavailable(f"postgres exited at start: {log.read_text(errors='replace')[-2000:]}")
            try:
                if status.read_text().rstrip().endswith("ready"):
                    return
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        self.stop()
        raise ServerUnavailable(f"postgres did not get ready in {START_PATIENCE:.0f} s")

    def create_schema(self) -> str:
        """A new empty schema of the tests' database, and the URL that works in it (asyncpg passes the URL's
        search_path to the server). A schema is some 10 times quicker to make than a database."""
        name = f"test_{uuid.uuid4().hex[:12]}"
        _run_detached(self._admin(f"CREATE SCHEMA {name}"))
        return f"{self.url}?search_path={name}"

    def drop_schema(self, url: str) -> None:
        _run_detached(self._admin(f"DROP SCHEMA {url.rpartition('search_path=')[2]} CASCADE"))

    async def _admin(self, sql: str) -> None:
        admin = await asyncpg.connect(self.url)
        try:
            await admin.execute(sql)
        finally:
            await admin.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown: clients are disconnected
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _run_detached(coroutine) -> None:
    """Run a coroutine to its end from sync code, on a thread of its own: a test's event loop may be running
    in this one."""
    error: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(coroutine)
        except BaseException as failure:  # noqa: BLE001 - handed to the caller's thread
            error.append(failure)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if error:
        raise error[0]
