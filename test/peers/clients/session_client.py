"""A user's Python client of the session API (test/rerun/session-server.mjs), on httpx: a session, its SSE stream read
in a thread while a message is posted and polled until completed, then the stream closed and the session deleted.
Prints the streamed text. Usage: python session_client.py BASE_URL"""
import sys
import threading
import time

import httpx

base = sys.argv[1]
seen = []
ready = threading.Event()
finished = threading.Event()


def read_events(client: httpx.Client, session: str, token: str) -> None:
    with client.stream("GET", f"{base}/sessions/{session}/events", headers={"x-session-token": token}) as response:
        event = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                event = line[len("event: "):]
            elif line.startswith("data: ") and event:
                seen.append((event, line[len("data: "):]))
                if event == "ready":
                    ready.set()
                if event.startswith("message.") and event not in ("message.started", "message.delta"):
                    finished.set()
                    return


with httpx.Client(timeout=30) as client:
    created = client.post(f"{base}/sessions", json={"name": "python"})
    created.raise_for_status()
    session, token = created.json()["id"], created.headers["x-session-token"]
    reader = threading.Thread(target=read_events, args=(client, session, token))
    reader.start()
    ready.wait(10)
    posted = client.post(f"{base}/sessions/{session}/messages", json={"text": "hi from python"}, headers={"x-session-token": token})
    message = posted.json()["message_id"]
    while client.get(f"{base}/sessions/{session}/messages/{message}", headers={"x-session-token": token}).json()["status"] != "completed":
        time.sleep(0.05)
    finished.wait(10)
    reader.join(10)
    client.delete(f"{base}/sessions/{session}", headers={"x-session-token": token})
    print("".join(__import__("json").loads(data)["text"] for event, data in seen if event == "message.delta").strip())
