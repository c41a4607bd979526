"""omnigent 0.19.1's own opencode transport (OpenCodeHttpTransport over its OpenCodeClient, what its opencode-native
harness injects turns with and its forwarder listens on) driving a turn, an interrupt, a restart mid-turn with a
second session beside it, and a second turn against an opencode server.

    python omnigent_opencode_transport.py BASE_URL WORKSPACE [PASSWORD]

prints the client's view as JSON: per turn the types of the session's events it brought and the errors among
them; the history omnigent reads back (an interrupted reply's words cut to a mark). Exit 1 with the step that
timed out.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from omnigent.harnesses.opencode_native.app_server import client_for_state
from omnigent.harnesses.opencode_native.http_transport import OpenCodeHttpTransport
from omnigent.native.native_server_transport import NativeLaunchConfig, NativePrompt

# What omnigent's opencode forwarder acts on (harnesses/opencode_native/forwarder.py); it ignores message.part.delta.
FORWARDER_TYPES = {"message.updated", "message.part.updated", "session.status", "session.idle", "session.error"}
TURN_TIMEOUT_S = float(os.environ.get("TURN_TIMEOUT_S", "60"))


def session_of(payload: dict) -> str | None:
    """The session an event is about, as omnigent's forwarder reads it."""
    info = payload.get("info") if isinstance(payload.get("info"), dict) else {}
    part = payload.get("part") if isinstance(payload.get("part"), dict) else {}
    return payload.get("sessionID") or part.get("sessionID") or info.get("sessionID") or info.get("id")


class Listener:
    """The session's events as omnigent's forwarder gets them, and waiters on them."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.types: list[str] = []
        self.errors: list[str] = []
        self.waiters: list[tuple[object, asyncio.Future[dict]]] = []

    def take(self, kind: str, payload: dict) -> None:
        # The forwarder passes on events that name no session too (plugin.added, catalog.updated): the server's,
        # whenever it gets to them; what this view compares is the session's own.
        if session_of(payload) != self.session_id:
            return
        self.types.append(kind)
        if kind == "session.error":
            error = payload.get("error") if isinstance(payload.get("error"), dict) else {}
            self.errors.append(str(error.get("name")))
        for match, future in list(self.waiters):
            if not future.done() and match(kind, payload):
                future.set_result(payload)

    def wait_for(self, match) -> asyncio.Future[dict]:
        future: asyncio.Future[dict] = asyncio.get_running_loop().create_future()
        self.waiters.append((match, future))
        return future


def idle(kind: str, payload: dict) -> bool:
    """The turn is over as the forwarder sees it: session.idle flushes its text (it follows session.status idle)."""
    return kind == "session.idle"


def assistant_delta(kind: str, payload: dict) -> bool:
    """The reply streaming: a text delta (the prompt's own text part comes as message.part.updated)."""
    return kind == "message.part.delta"


async def turn(transport: OpenCodeHttpTransport, listener: Listener, step: str, text: str, interrupt: bool = False) -> dict:
    done = listener.wait_for(idle)
    first_text = listener.wait_for(assistant_delta)
    before, errors_before = len(listener.types), len(listener.errors)
    await transport.send_prompt(listener.session_id, NativePrompt(text=text))
    try:
        if interrupt:
            await asyncio.wait_for(first_text, TURN_TIMEOUT_S)
            aborted = await transport.abort(listener.session_id)
        await asyncio.wait_for(done, TURN_TIMEOUT_S)
    except TimeoutError:
        raise SystemExit(f"{step}: the session did not go idle within {TURN_TIMEOUT_S} s; events: {listener.types[before:]}")
    # Which of the types the forwarder acts on the turn brought, not their order: opencode sends them in whichever
    # order its own tasks finish, run to run. (session.diff and session.updated, which it does not read, may come
    # after the idle and so in the next turn.)
    brought = {t for t in listener.types[before:] if t in FORWARDER_TYPES}
    out = {"events": sorted(brought), "errors": listener.errors[errors_before:]}
    return {**out, "aborted": aborted} if interrupt else out


async def pump(transport: OpenCodeHttpTransport, listener: Listener, connected: asyncio.Event) -> None:
    """The session's event stream into its listener, as the forwarder reads it."""
    events = transport.events(listener.session_id)
    connected.set()
    async for event in events:
        listener.take(event.type, dict(event.payload))


async def listening(transport: OpenCodeHttpTransport, listener: Listener) -> asyncio.Task:
    connected = asyncio.Event()
    task = asyncio.create_task(pump(transport, listener, connected))
    await connected.wait()
    # The forwarder is on the stream before anything is sent, as the runner starts it.
    await asyncio.sleep(0.2)
    return task


def forwarded(listener: Listener, since: int = 0) -> list[str]:
    return sorted({t for t in listener.types[since:] if t in FORWARDER_TYPES})


async def restart_beside(transport: OpenCodeHttpTransport, listener: Listener, fresh_transport, workspace: str) -> dict:
    """A second session's turn beside the first's long one; mid-turn the harness restarts (a new transport resumes the
    session and listens again) and stops the turn through it. Both sessions must settle."""
    beside_id = await transport.create_or_resume_session(NativeLaunchConfig(omnigent_session_id="conv_tapedeck_beside", workspace=workspace))
    beside = Listener(beside_id)
    beside_task = await listening(transport, beside)
    beside_done = beside.wait_for(idle)
    first_text = listener.wait_for(assistant_delta)
    await transport.send_prompt(listener.session_id, NativePrompt(text="Write a long essay about computing."))
    await transport.send_prompt(beside_id, NativePrompt(text="Reply with exactly the literal string OPENCODE_BESIDE and nothing else."))
    try:
        await asyncio.wait_for(first_text, TURN_TIMEOUT_S)
        fresh = fresh_transport()
        resumed = await fresh.create_or_resume_session(NativeLaunchConfig(omnigent_session_id="conv_tapedeck_check", workspace=workspace))
        relistened = Listener(resumed)
        task = await listening(fresh, relistened)
        done = relistened.wait_for(idle)
        aborted = await fresh.abort(resumed)
        await asyncio.wait_for(done, TURN_TIMEOUT_S)
        await asyncio.wait_for(beside_done, TURN_TIMEOUT_S)
    except TimeoutError:
        raise SystemExit(f"restart: a session did not go idle within {TURN_TIMEOUT_S} s; events: {listener.types}, beside: {beside.types}")
    finally:
        beside_task.cancel()
    task.cancel()
    return {
        "resumed_same_session": resumed == listener.session_id,
        "aborted": aborted,
        "after_restart": forwarded(relistened),
        "errors": relistened.errors,
        "beside": forwarded(beside),
        "beside_errors": beside.errors,
    }


async def main(base_url: str, workspace: str, password: str | None) -> None:
    def fresh_transport() -> OpenCodeHttpTransport:
        return OpenCodeHttpTransport(
            client_factory=lambda: client_for_state(base_url=base_url, auth_secret=password, directory=workspace),
            directory=workspace,
        )

    transport = fresh_transport()
    session_id = await transport.create_or_resume_session(
        NativeLaunchConfig(omnigent_session_id="conv_tapedeck_check", workspace=workspace)
    )
    listener = Listener(session_id)
    task = await listening(transport, listener)
    try:
        result = {
            "first": await turn(transport, listener, "first", "Reply with exactly the literal string OPENCODE_OK and nothing else."),
            "interrupted": await turn(transport, listener, "interrupted", "Write a long essay about computing.", interrupt=True),
            "restart": await restart_beside(transport, listener, fresh_transport, workspace),
            "second": await turn(transport, listener, "second", "Reply with exactly the literal string OPENCODE_AGAIN and nothing else."),
        }
        history = await transport.list_history(session_id)
    finally:
        task.cancel()
    messages = []
    for message in history:
        info = message.get("info", {})
        texts = [p.get("text", "") for p in message.get("parts", []) if p.get("type") == "text"]
        entry = {"role": info.get("role"), "text": "".join(texts)}
        if info.get("role") == "assistant":
            # An interrupted reply holds however many words came before the abort: its length is the server's race.
            entry = {"role": "assistant", "text": entry["text"] if "essay" not in entry["text"] and not entry["text"].startswith("Computing") else "<interrupted>", "error": (info.get("error") or {}).get("name")}
        messages.append(entry)
    print(json.dumps({"turns": result, "history": messages}))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        raise SystemExit("usage: omnigent_opencode_transport.py BASE_URL WORKSPACE [PASSWORD]")
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None))
