"""An A2A agent on the official Python SDK (a2a-sdk 1.3.0: its DefaultRequestHandler, TaskUpdater and Starlette
routes), for the a2a family's peers. It answers a message with a task: submitted, working, its reply streamed as an
artifact in two chunks, completed; a message asking for something slow works until cancelled (or 10 s).

Listens on 127.0.0.1 on a port the system picks, says which on stderr (`tapedeck: listening on 127.0.0.1:<port>`),
serves the agent card at /.well-known/agent-card.json and JSON-RPC at /a2a/jsonrpc, and stops on SIGTERM or SIGINT.
Run by test/peers/a2a-servers.ts from the venv of test/peers/python/a2a-python.lock.
"""

import asyncio
import re
import socket
import sys

import uvicorn
from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette


class Executor(AgentExecutor):
    def __init__(self) -> None:
        self.cancelled: set[str] = set()

    async def execute(self, context: RequestContext, event_queue) -> None:
        asked = context.get_user_input(" ")
        if context.current_task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
            task_id, context_id = task.id, task.context_id
        else:
            task_id, context_id = context.task_id, context.context_id
        updater = TaskUpdater(event_queue, task_id, context_id)
        await updater.start_work()
        if re.search(r"\bslow\b", asked, re.IGNORECASE):
            for _ in range(100):
                if task_id in self.cancelled:
                    await updater.cancel()
                    return
                await asyncio.sleep(0.1)
        reply = f"You said: {asked}"
        half = (len(reply) + 1) // 2
        artifact_id = f"reply-{task_id}"
        await updater.add_artifact([new_text_part(reply[:half])], artifact_id=artifact_id, name="reply", append=False, last_chunk=False)
        await asyncio.sleep(0.02)
        await updater.add_artifact([new_text_part(reply[half:])], artifact_id=artifact_id, name="reply", append=True, last_chunk=True)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue) -> None:
        self.cancelled.add(context.task_id)


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    card = AgentCard(
        name="tapedeck A2A example (Python SDK)",
        description="Answers with what it was told, as a streamed artifact; works slowly when asked.",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=f"http://127.0.0.1:{port}/a2a/jsonrpc", protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Says back what it was told", tags=["echo"])],
    )
    handler = DefaultRequestHandler(agent_executor=Executor(), task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/a2a/jsonrpc")])
    print(f"tapedeck: listening on 127.0.0.1:{port}", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
