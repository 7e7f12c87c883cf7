"""The tests' PostgreSQL server, as a pytest plugin (loaded by tests/conftest.py).

The first test that asks for `postgres_server` (or `postgres_url`, an empty schema of its own) starts one
(tests/postgres_server.py); it is stopped when the session ends, or dies with the test run if that is killed.
Without the PostgreSQL programs the tests that need them are skipped, and the summary says so in a line of its
own, with how to install them; with CI=true they fail instead.
"""

from __future__ import annotations

import os

import pytest

from tests.postgres_server import PostgresServer, ServerUnavailable

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
