"""A user's Python client of opencode serve, on httpx: the event stream read in a thread, a session created and
prompted to run a tool, the permission it asks for granted (its id learned from the stream), the turn read to its
idle, then the session's history read and the session deleted. Prints the tool's final state.
Usage: python opencode_flow.py BASE_URL"""
import json
import queue
import sys
import threading

import httpx

base = sys.argv[1]
events: "queue.Queue[dict]" = queue.Queue()
session = {}


def read_events(client: httpx.Client) -> None:
    with client.stream("GET", f"{base}/event") as response:
        for line in response.iter_lines():
            if not line.startswith("data: "):
                continue
            event = json.loads(line[len("data: "):])
            events.put(event)
            props = event.get("properties", {})
            if event.get("type") == "session.idle" and props.get("sessionID") == session.get("id"):
                return


def wait_for(kind: str) -> dict:
    while True:
        event = events.get(timeout=60)
        props = event.get("properties", {})
        if event.get("type") == kind and props.get("sessionID", session.get("id")) == session.get("id"):
            return event


with httpx.Client(timeout=60) as client:
    reader = threading.Thread(target=read_events, args=(client,))
    reader.start()
    wait_for("server.connected")
    session["id"] = client.post(f"{base}/session", json={"title": "python flow"}).json()["id"]
    client.post(f"{base}/session/{session['id']}/prompt_async", json={"parts": [{"type": "text", "text": "Please run: echo hello-from-tool"}]})
    asked = wait_for("permission.asked")
    client.post(f"{base}/permission/{asked['properties']['id']}/reply", json={"reply": "once"})
    reader.join(60)
    history = client.get(f"{base}/session/{session['id']}/message").json()
    tools = [p for m in history for p in m.get("parts", []) if p.get("type") == "tool"]
    client.delete(f"{base}/session/{session['id']}")
    print(tools[-1]["state"]["status"] if tools else "no tool")
