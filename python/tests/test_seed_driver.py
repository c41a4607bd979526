"""A subscribe-first SSE driver in the harness bench's style, offline against a committed cassette.

It provisions a native session (health, host, agent, session, terminal), subscribes to the
session stream in a thread *before* posting the message, counts text deltas until the
output is done, polls the items for the new assistant reply, then reads the session's
cost and deletes it: the streaming probe, judged as the bench judges it.
"""

from __future__ import annotations

import json
import tempfile
import threading
from pathlib import Path

import httpx
import pytest

HARNESS = "claude-native"
STREAM_PROMPT = "Count from 1 to 20 in words, one per line."
DELTA = "response.output_text.delta"
TERMINAL = {"response.output_item.done", "response.failed", "session.interrupted"}


def assistant_items(client: httpx.Client, session: str) -> list[dict]:
    resp = client.get(f"/v1/sessions/{session}/items", params={"order": "asc", "limit": 1000})
    resp.raise_for_status()
    return [it for it in resp.json()["data"] if it.get("type") == "message" and it.get("role") == "assistant"]


def text_of(item: dict) -> str:
    return " ".join(part.get("text", "") for part in item.get("content", []) if isinstance(part, dict))


@pytest.mark.tapedeck(f"cassettes/{HARNESS}/streaming.yaml", strict=True)
def test_streaming_probe_is_supported_offline(tapedeck_url: str) -> None:
    with httpx.Client(base_url=tapedeck_url, timeout=30.0, headers={"Origin": "omnigent://internal"}) as client:
        assert client.get("/health").status_code == 200
        host = next(h for h in client.get("/v1/hosts").json()["hosts"] if h["status"] == "online")
        agents = client.get("/v1/agents", params={"limit": 100}).json()["data"]
        agent = next(a for a in agents if a["name"] == f"{HARNESS}-ui")
        # The workspace the bench used, under this machine's temp folder (the cassette says <tmp>).
        workspace = str(Path(tempfile.gettempdir()) / "tapedeck-bench" / HARNESS)
        created = client.post("/v1/sessions", json={"agent_id": agent["id"], "host_id": host["host_id"], "workspace": workspace})
        assert created.status_code == 201, created.text
        session = created.json()["id"]
        ensured = client.post(
            f"/v1/sessions/{session}/resources/terminals",
            json={"terminal": "claude", "session_key": "main", "ensure_native_terminal": True},
        )
        assert ensured.status_code == 200
        assert client.get(f"/v1/sessions/{session}").json().get("external_session_id")
        baseline = len(assistant_items(client, session))

        events: list[str] = []
        ready = threading.Event()

        def read() -> None:
            with client.stream("GET", f"/v1/sessions/{session}/stream") as resp:
                ready.set()
                for line in resp.iter_lines():
                    if line.startswith("event:"):
                        events.append(line[len("event:") :].strip())
                        if events[-1] in TERMINAL:
                            return

        reader = threading.Thread(target=read)
        reader.start()
        assert ready.wait(10.0)  # subscribe before posting, so no delta is lost
        posted = client.post(
            f"/v1/sessions/{session}/events",
            json={"type": "message", "data": {"role": "user", "content": [{"type": "input_text", "text": STREAM_PROMPT}]}},
        )
        assert posted.status_code == 202
        reply = None
        for _ in range(100):
            items = assistant_items(client, session)
            if len(items) > baseline:
                reply = text_of(items[-1])
                break
        reader.join(10.0)
        assert not reader.is_alive()

        deltas = sum(1 for e in events if e == DELTA)
        assert deltas > 0, f"streaming: no {DELTA} before the output was done ({events})"
        assert reply and "one" in reply.lower()
        snapshot = client.get(f"/v1/sessions/{session}").json()
        assert snapshot.get("total_cost_usd") is not None or snapshot.get("last_total_tokens") is not None

        # Teardown as the bench does it: the stream closes with [DONE] once the session is deleted.
        closing: list[str] = []

        def drain() -> None:
            with client.stream("GET", f"/v1/sessions/{session}/stream") as resp:
                for line in resp.iter_lines():
                    if line.startswith("data:"):
                        closing.append(line[len("data:") :].strip())

        drainer = threading.Thread(target=drain)
        drainer.start()
        assert client.delete(f"/v1/sessions/{session}").status_code == 200
        drainer.join(10.0)
        assert closing[-1] == "[DONE]"
        assert json.loads(closing[0])["type"] == "session.heartbeat"
