"""The plugin seen from outside: inner pytest runs (pytester) against real bench processes."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
STREAMING = REPO / "cassettes" / "claude-native" / "streaming.yaml"


def inner(pytester: pytest.Pytester, body: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_inner=f"import httpx\nimport pytest\n\n{body}")
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_a_request_no_recording_matches_fails_the_test_and_names_the_nearest(pytester: pytest.Pytester) -> None:
    result = inner(
        pytester,
        f"""
@pytest.mark.tapedeck({str(STREAMING)!r})
def test_it(tapedeck_url):
    assert httpx.get(tapedeck_url + "/health").status_code == 200
    assert httpx.get(tapedeck_url + "/v1/nope").status_code == 400
""",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*1 requests matched no recording in streaming.yaml:*", "*GET /v1/nope. Nearest: streaming.yaml #*"])


def test_strict_fails_on_interactions_nobody_asked_for_and_lenient_does_not(pytester: pytest.Pytester) -> None:
    body = f"""
@pytest.mark.tapedeck({str(STREAMING)!r}, strict=True)
def test_strict(tapedeck_url):
    assert httpx.get(tapedeck_url + "/health").json() == {{"status": "ok"}}

@pytest.mark.tapedeck({str(STREAMING)!r})
def test_lenient(tapedeck_url):
    assert httpx.get(tapedeck_url + "/health").json() == {{"status": "ok"}}
"""
    result = inner(pytester, body)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["strict: 12 recorded interactions of streaming.yaml were never requested (streaming.yaml #2 GET /v1/hosts, *", "FAILED test_inner.py::test_strict*"])
    # --tapedeck-strict makes every test strict.
    inner(pytester, body, "--tapedeck-strict").assert_outcomes(failed=2)


def test_a_test_without_a_cassette_or_with_a_missing_one_is_told_what_to_do(pytester: pytest.Pytester) -> None:
    result = inner(
        pytester,
        """
def test_unmarked(tapedeck_url):
    pass

@pytest.mark.tapedeck("no/such/cassette.yaml")
def test_missing(tapedeck_url):
    pass
""",
    )
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*mark the test, e.g. @pytest.mark.tapedeck(*", "*no cassette at *no/such/cassette.yaml: record it first*"])


class _Api(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        body = json.dumps({"path": self.path, "answer": 42}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_record_mode_runs_bench_proxy_in_front_of_a_live_server_then_the_cassette_replays_offline(pytester: pytest.Pytester) -> None:
    live = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    threading.Thread(target=live.serve_forever, daemon=True).start()
    cassette = pytester.path / "cassettes" / "api.yaml"
    body = f"""
@pytest.mark.tapedeck({str(cassette)!r}, strict=True)
def test_api(tapedeck_url):
    assert httpx.get(tapedeck_url + "/v1/answer?q=life").json() == {{"path": "/v1/answer?q=life", "answer": 42}}
"""
    try:
        recorded = inner(pytester, body, "--tapedeck-mode", "record", "--tapedeck-target", f"http://127.0.0.1:{live.server_port}")
        recorded.assert_outcomes(passed=1)
    finally:
        live.shutdown()
        live.server_close()
    text = cassette.read_text()
    assert text.startswith("# tapedeck cassette, format v1")
    assert "/v1/answer?q=life" in text
    # The live server is gone: the same test passes from the cassette alone, strictly.
    inner(pytester, body).assert_outcomes(passed=1)
    # Record mode with no server to record says so.
    inner(pytester, body, "--tapedeck-mode", "record").stdout.fnmatch_lines(["*record mode needs the live server: --tapedeck-target URL*"])
