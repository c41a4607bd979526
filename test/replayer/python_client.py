"""A plain Python client of the session API (standard library only): opens the
stream, posts a message, reads to the turn's end, then polls items. Prints one
line per stream event type, then `text: <reply>`. Used by the replay tests."""
import json
import sys
import threading
import urllib.request

base, session, prompt = sys.argv[1], sys.argv[2], sys.argv[3]
events = []
ready = threading.Event()
done = threading.Event()


def read_stream():
    req = urllib.request.Request(f"{base}/v1/sessions/{session}/stream", headers={"accept": "text/event-stream"})
    with urllib.request.urlopen(req, timeout=20) as resp:
        seen_output = False
        for raw in resp:
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line.startswith("event:"):
                continue
            kind = line[len("event:"):].strip()
            events.append(kind)
            ready.set()
            if kind == "response.output_item.done":
                seen_output = True
            if kind == "session.status" and seen_output:
                break
    done.set()


reader = threading.Thread(target=read_stream, daemon=True)
reader.start()
ready.wait(10)
body = json.dumps({"type": "message", "data": {"role": "user", "content": [{"type": "input_text", "text": prompt}]}}).encode()
post = urllib.request.Request(f"{base}/v1/sessions/{session}/events", data=body, method="POST", headers={"content-type": "application/json"})
urllib.request.urlopen(post, timeout=10).read()
done.wait(20)
items = json.loads(urllib.request.urlopen(f"{base}/v1/sessions/{session}/items?order=asc&limit=1000", timeout=10).read())
replies = [i for i in items["data"] if i.get("role") == "assistant"]
for kind in events:
    print(kind)
print("text: " + (replies[-1]["content"][0]["text"] if replies else ""))
