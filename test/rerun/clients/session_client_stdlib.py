"""A user's Python client of the session API on the standard library alone: the event stream parsed as SSE (any
line ending, comments skipped) in a thread while a message is posted and polled until completed.
Usage: python session_client_stdlib.py BASE_URL [--assume-first-is-ready]
With --assume-first-is-ready it carries a planted bug: it takes the stream's first line for the ready event, as a
hand-rolled client that never met a comment or a split line does."""
import codecs
import http.client
import os
import json
import re
import sys
import threading
import time
import urllib.parse
import urllib.request

base = sys.argv[1]
buggy = "--assume-first-is-ready" in sys.argv[2:]
host = urllib.parse.urlsplit(base)
events = []
ready = threading.Event()
done = threading.Event()


def call(method, path, token=None, body=None):
    headers = {"content-type": "application/json"} | ({"x-session-token": token} if token else {})
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(base + path, data=data, method=method, headers=headers)) as r:
        text = r.read().decode()
        return json.loads(text) if text else None, r.headers


def frames(response):
    """SSE frames from a response: lines end in CRLF, LF or CR; a blank line ends a frame."""
    buffer, frame, skip_lf = "", {}, False
    # A chunk may end inside a character: decode across chunks.
    decoder = codecs.getincrementaldecoder("utf-8")()
    while True:
        chunk = response.read1(4096)
        if not chunk:
            return
        text = decoder.decode(chunk)
        # A CR ends its line at once; an LF right after it, even in the next chunk, is part of the same line end.
        if skip_lf and text.startswith("\n"):
            text = text[1:]
        if text:
            skip_lf = text.endswith("\r")
        lines = re.split(r"\r\n|\r|\n", buffer + text)
        buffer = lines.pop()
        for line in lines:
            if line == "":
                if frame:
                    yield frame
                frame = {}
            elif not line.startswith(":"):
                field, _, value = line.partition(":")
                frame[field] = value[1:] if value.startswith(" ") else value


def read_events(session, token):
    conn = http.client.HTTPConnection(host.hostname, host.port)
    conn.request("GET", f"/sessions/{session}/events", headers={"x-session-token": token})
    response = conn.getresponse()
    if buggy:
        first = response.readline().decode()
        if first != "event: ready\n":
            print(f"expected the ready event first, got {first!r}", flush=True)
            os._exit(1)
        ready.set()
    for frame in frames(response):
        events.append(frame)
        if frame.get("event") == "ready":
            ready.set()
        if frame.get("event") == "message.completed":
            done.set()
            break
    conn.close()


created, headers = call("POST", "/sessions", body={"name": "stdlib"})
session, token = created["id"], headers["x-session-token"]
reader = threading.Thread(target=read_events, args=(session, token), daemon=True)
reader.start()
if not ready.wait(10):
    sys.exit("the stream never said ready")
posted, _ = call("POST", f"/sessions/{session}/messages", token, {"text": "hello there"})
while call("GET", f"/sessions/{session}/messages/{posted['message_id']}", token)[0]["status"] != "completed":
    time.sleep(0.02)
if not done.wait(10):
    sys.exit("the stream never completed the message")
call("DELETE", f"/sessions/{session}", token)
text = "".join(json.loads(f["data"])["text"] for f in events if f.get("event") == "message.delta")
print(text.strip())
