"""A throwaway PostgreSQL server for the tests (a pytest plugin, loaded by tests/conftest.py).

The first test that asks for `postgres_server` (or `postgres_url`, an empty schema of its own) starts one:
initdb into a temporary folder, then `postgres` on a free port of 127.0.0.1 with trust authentication. It is
stopped when the session ends; should the test run itself be killed, the server gets SIGINT (a fast
shutdown) from the kernel as its parent dies (PR_SET_PDEATHSIG), so none is left running. Run as root (CI),
initdb and postgres, which refuse root, run as the `postgres` system user in a folder it owns.

Without the PostgreSQL programs the tests that need them are skipped, and the summary says so in a line of
its own, with how to install them; with CI=true they fail instead.
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
import pytest

SUPERUSER = "mentat"
FOLDER_PREFIX = "mentat-pg-"
OWNER_FILE = "owner.pid"  # the pid of the test run that started the server in this folder
START_PATIENCE = 30.0  # seconds
INSTALL_HINT = ("install the PostgreSQL server (Debian: apt-get install postgresql; its programs are in "
                "/usr/lib/postgresql/<version>/bin, which must be on the PATH or is found there)")
PR_SET_PDEATHSIG = 1
# Test speed, not durability: the server is thrown away. (A killed client still loses no committed row.)
SERVER_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
                   "listen_addresses": "127.0.0.1", "max_connections": "200", "log_min_messages": "warning"}


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
    def start(cls) -> PostgresServer:
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
        settings = [arg for name, value in SERVER_SETTINGS.items() for arg in ("-c", f"{name}={value}")]
        parent = os.getpid()
        with log.open("wb") as log_file:
            process = subprocess.Popen(
                [programs["postgres"], "-D", str(data), "-p", str(port), "-k", str(folder), *settings],
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


# --- the plugin ---------------------------------------------------------------------------------------------

_state: dict[str, object] = {}  # "server" once started, "unavailable" (the reason) once that failed
_not_run: list[str] = []  # the tests skipped for want of a server


@pytest.fixture(scope="session")
def postgres_server():
    """The session's PostgreSQL server, started on first use (see the module's docstring)."""
    if "unavailable" not in _state and "server" not in _state:
        try:
            _state["server"] = PostgresServer.start()
        except ServerUnavailable as problem:
            _state["unavailable"] = str(problem)
    if "unavailable" in _state:
        reason = f"PostgreSQL tests did not run: {_state['unavailable']}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason} (CI=true: a missing server fails the run)", pytrace=False)
        pytest.skip(reason)
    return _state["server"]


@pytest.fixture
def postgres_url(postgres_server: PostgresServer):
    """A URL to an empty schema of its own on the session's server, dropped after the test."""
    url = postgres_server.create_schema()
    yield url
    postgres_server.drop_schema(url)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and "PostgreSQL tests did not run" in str(report.longrepr):
        _not_run.append(report.nodeid)


def pytest_terminal_summary(terminalreporter) -> None:
    if _not_run:
        terminalreporter.write_sep("!", f"PostgreSQL tests did NOT run ({len(_not_run)} skipped)", red=True,
                                   bold=True)
        terminalreporter.write_line(str(_state.get("unavailable", "")))
        terminalreporter.write_line("Install it and run again; with CI=true a missing server fails the run.")


def pytest_sessionfinish(session) -> None:
    server = _state.pop("server", None)
    if server is not None:
        server.stop()
