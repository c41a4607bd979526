"""omnigent 0.19.1's own codex transport (CodexAppServerClient, the WebSocket JSON-RPC client its codex-native
harness injects turns with) driving a turn, an interrupt and a second turn against a codex app-server.

    python omnigent_codex_transport.py WS_URL WORKSPACE

prints the client's view as JSON: per turn its final status and agent text and whether its notifications came
before it was started; per connection, the notification methods in the order they came (a run of one method
written once). Exit 1 with the step that timed out.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from omnigent.harnesses.codex_native.app_server import CodexAppServerClient

TURN_TIMEOUT_S = float(os.environ.get("TURN_TIMEOUT_S", "60"))


class View:
    """Every notification the client was handed, by the step it came in, and each step's agent text."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.step = "connect"
        self.steps: dict[str, list[str]] = {}
        self.texts: dict[str, list[str]] = {}
        # Every notification in the order this connection got it, and the turns it has heard of.
        self.sequence: list[str] = []
        self.turns_heard: set[str] = set()
        self.waiters: list[tuple[object, asyncio.Future[dict]]] = []

    def take(self, message: dict) -> None:
        method = message.get("method", "")
        # Server requests (approvals) carry an id; the flow asks for none.
        self.steps.setdefault(self.step, []).append(method if "id" not in message else f"request {method}")
        self.sequence.append(method)
        turn_id = params(message).get("turnId") or params(message).get("turn", {}).get("id")
        if turn_id:
            self.turns_heard.add(turn_id)
        item = params(message).get("item", {})
        if method == "item/completed" and isinstance(item, dict) and item.get("type") == "agentMessage":
            self.texts.setdefault(self.step, []).append(str(item.get("text", "")))
        for match, future in list(self.waiters):
            if not future.done() and match(message):
                future.set_result(message)

    def wait_for(self, match) -> asyncio.Future[dict]:
        future: asyncio.Future[dict] = asyncio.get_running_loop().create_future()
        self.waiters.append((match, future))
        return future


async def consume(client: CodexAppServerClient, view: View) -> None:
    async for message in client.iter_events():
        view.take(message)


def params(message: dict) -> dict:
    value = message.get("params")
    return value if isinstance(value, dict) else {}


async def inject(url: str, method: str, params_: dict) -> dict:
    """One call as omnigent's codex-native executor makes it: a fresh connection, initialize, the call, close."""
    client = CodexAppServerClient(ws_url=url, client_name="omnigent-codex-native")
    await client.connect()
    try:
        return (await client.request(method, params_))["result"]
    finally:
        await client.close()


async def turn(url: str, views: list[View], step: str, thread_id: str, text: str, interrupt: bool = False) -> dict:
    """A turn injected over its own connection (and, to interrupt it, another), watched on every listening connection."""
    for view in views:
        view.step = step
    owner = views[0]
    completed = [v.wait_for(lambda m: m.get("method") == "turn/completed" and params(m).get("threadId") == thread_id) for v in views]
    first_delta = owner.wait_for(lambda m: m.get("method") == "item/agentMessage/delta")
    heard_before = set(owner.turns_heard)
    started = await inject(url, "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    turn_id = started["turn"]["id"]
    try:
        if interrupt:
            await asyncio.wait_for(first_delta, TURN_TIMEOUT_S)
            await inject(url, "turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
        done = await asyncio.wait_for(asyncio.gather(*completed), TURN_TIMEOUT_S)
    except TimeoutError:
        seen = {v.name: v.steps for v in views}
        waited = "a first delta" if interrupt and not first_delta.done() else "turn/completed"
        raise SystemExit(f"{step}: no {waited} within {TURN_TIMEOUT_S} s; notifications: {seen}")
    return {
        "status": params(done[0]).get("turn", {}).get("status"),
        "text": "".join(owner.texts.get(step, [])),
        # A replay that let the turn's notifications out before its turn/start would show them here.
        "heardBeforeStart": turn_id in heard_before,
    }


def collapsed(methods: list[str]) -> list[str]:
    """Methods in order, a run of one (deltas, whose count an interrupt races) written once."""
    out: list[str] = []
    for m in methods:
        if not out or out[-1] != m:
            out.append(m)
    return out


async def main(url: str, workspace: str) -> None:
    # The connection that starts the thread and stays on it, as the codex TUI does.
    owner_view = View("owner")
    owner = CodexAppServerClient(ws_url=url, client_name="omnigent-codex-native")
    await owner.connect()
    tasks = [asyncio.create_task(consume(owner, owner_view))]
    listener: CodexAppServerClient | None = None
    try:
        owner_view.step = "thread"
        thread_started = owner_view.wait_for(lambda m: m.get("method") == "thread/started")
        thread_id = (await owner.request("thread/start", {"cwd": workspace}))["result"]["thread"]["id"]
        await asyncio.wait_for(thread_started, TURN_TIMEOUT_S)
        first = await turn(url, [owner_view], "first", thread_id, "Reply with exactly the literal string CODEX_OK and nothing else.")
        # omnigent's forwarder: its own connection, subscribed with thread/resume once the thread has a rollout.
        listener_view = View("forwarder")
        listener = CodexAppServerClient(ws_url=url, client_name="omnigent-codex-native")
        await listener.connect()
        tasks.append(asyncio.create_task(consume(listener, listener_view)))
        listener_view.step = "resume"
        resumed = (await listener.request("thread/resume", {"threadId": thread_id, "excludeTurns": True}))["result"]
        views = [owner_view, listener_view]
        result = {
            "first": first,
            "resumed": {"thread": resumed["thread"]["id"] == thread_id},
            "interrupted": await turn(url, views, "interrupted", thread_id, "Write a long essay about computing.", interrupt=True),
            "second": await turn(url, views, "second", thread_id, "Reply with exactly the literal string CODEX_AGAIN and nothing else."),
        }
    finally:
        for client in (listener, owner):
            if client is not None:
                await client.close()
        for task in tasks:
            task.cancel()
    # Per connection, in the order it came: which of our own steps a notification lands in is a race of the server's
    # (thread/goal/cleared follows a resume by a few ms on the thread's other connections), the order on one connection is not.
    seen = {v.name: collapsed(v.sequence) for v in ([owner_view, listener_view] if listener else [owner_view])}
    print(json.dumps({"turns": result, "notifications": seen}))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: omnigent_codex_transport.py WS_URL WORKSPACE")
    asyncio.run(main(sys.argv[1], sys.argv[2]))
