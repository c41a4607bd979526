"""The pytest plugin: a marker to name the cassette, a fixture that serves it, options for CI."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_tapedeck.bench import BenchError, BenchProcess

MODES = ("replay", "record")
TIMINGS = ("instant", "realtime")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tapedeck", "replay and record tapedeck cassettes")
    group.addoption(
        "--tapedeck-mode",
        choices=MODES,
        default=None,
        help="replay (default): serve the cassette with bench replay; record: run bench proxy in front of --tapedeck-target",
    )
    group.addoption("--tapedeck-target", default=None, help="record mode: the live server to record, e.g. http://127.0.0.1:6767")
    group.addoption("--tapedeck-strict", action="store_true", default=None, help="fail a test whose cassette has interactions it never asked for")
    group.addoption("--tapedeck-timing", default=None, help="replay timing: instant (default), realtime, or scaled:<factor>")
    parser.addini("tapedeck_mode", "replay or record", default="replay")
    parser.addini("tapedeck_target", "record mode: the live server to record", default="")
    parser.addini("tapedeck_root", "folder cassette paths are relative to (default: the rootdir)", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "tapedeck(cassette, *, strict=False, timing='instant'): the cassette file or folder the tapedeck fixtures serve (or record into)",
    )


@dataclass(frozen=True)
class TapedeckSession:
    """What a test gets: the base URL to point its client at, and what it is talking to."""

    url: str
    mode: str
    cassette: Path
    strict: bool


def _option(config: pytest.Config, flag: str, ini: str) -> str:
    value = config.getoption(flag)
    return str(value) if value else str(config.getini(ini))


def _marker(request: pytest.FixtureRequest) -> pytest.Mark:
    mark = request.node.get_closest_marker("tapedeck")
    if mark is None or not (mark.args or "cassette" in mark.kwargs):
        pytest.fail(
            "the tapedeck fixtures need a cassette: mark the test, e.g. "
            '@pytest.mark.tapedeck("cassettes/kiro-native/basic_turn.yaml")',
            pytrace=False,
        )
    return mark


def _cassette_path(config: pytest.Config, mark: pytest.Mark) -> Path:
    root = config.rootpath / str(config.getini("tapedeck_root"))
    return (root / str(mark.args[0] if mark.args else mark.kwargs["cassette"])).resolve()


@pytest.fixture
def tapedeck(request: pytest.FixtureRequest) -> Iterator[TapedeckSession]:
    """Serves the marked cassette with `bench replay` (or records it through `bench proxy`) for one test."""
    config = request.config
    mark = _marker(request)
    cassette = _cassette_path(config, mark)
    mode = _option(config, "--tapedeck-mode", "tapedeck_mode") or "replay"
    if mode not in MODES:
        pytest.fail(f"tapedeck_mode {mode!r}: use one of {', '.join(MODES)}", pytrace=False)
    strict = bool(config.getoption("--tapedeck-strict")) or bool(mark.kwargs.get("strict", False))
    if mode == "record":
        target = _option(config, "--tapedeck-target", "tapedeck_target")
        if not target:
            pytest.fail("record mode needs the live server: --tapedeck-target URL (or tapedeck_target in the ini file)", pytrace=False)
        cassette.parent.mkdir(parents=True, exist_ok=True)
        args = ["proxy", "--target", target, "--cassette", str(cassette), "--port", "0"]
    else:
        if not cassette.exists():
            pytest.fail(
                f"no cassette at {cassette}: record it first (--tapedeck-mode record --tapedeck-target URL, or bench record)",
                pytrace=False,
            )
        timing = str(config.getoption("--tapedeck-timing") or mark.kwargs.get("timing", "instant"))
        args = ["replay", str(cassette), "--port", "0", "--timing", timing]
    try:
        bench = BenchProcess(args).start()
    except BenchError as exc:
        pytest.fail(str(exc), pytrace=False)
    request.node.stash[_RUNNING] = _Running(bench, mode, cassette, strict)
    try:
        yield TapedeckSession(url=bench.url, mode=mode, cassette=cassette, strict=strict)
    finally:
        # Stopped already by the call hook when the test body ran; here when it did not (a setup error).
        bench.stop()


@dataclass
class _Running:
    bench: BenchProcess
    mode: str
    cassette: Path
    strict: bool


_RUNNING = pytest.StashKey[_Running]()


def _verdict(running: _Running) -> str | None:
    """Why the test fails for what bench saw, or None."""
    bench, cassette = running.bench, running.cassette
    code = bench.stop()
    if running.mode == "record":
        return None if code == 0 else f"bench proxy did not save {cassette} (exit {code}): {bench.stderr().strip()}"
    misses = bench.misses()
    if misses:
        listed = "\n  ".join(misses)
        return f"{len(misses)} requests matched no recording in {cassette.name}:\n  {listed}"
    count, which = bench.unused()
    if running.strict and count:
        return (
            f"strict: {count} recorded interactions of {cassette.name} were never requested"
            + (f" ({which})" if which else "")
            + "; the client did less than when it was recorded: re-record, or drop strict"
        )
    if code not in (0, None):
        return f"bench replay exited {code}: {bench.stderr().strip()}"
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    # Judged in the call phase, so a miss makes the test FAILED, not an error at teardown.
    result = yield
    running = item.stash.get(_RUNNING, None)
    if running is not None:
        why = _verdict(running)
        if why:
            pytest.fail(why, pytrace=False)
    return result


@pytest.fixture
def tapedeck_url(tapedeck: TapedeckSession) -> str:
    """The base URL of the replay (or the recording proxy) for the marked cassette."""
    return tapedeck.url
