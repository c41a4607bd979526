"""An AG-UI server of the pydantic-ai project (pydantic-ai-slim 2.78.0, its AGUIAdapter), for the ag-ui family's peers.

Its model is tapedeck's mock model (OpenAI chat completions at $MOCK_MODEL_URL), so its runs are scripted and
offline: a weather tool of its own, a notes tool that keeps AG-UI state, and any tool the client offers.
Listens on 127.0.0.1 on a port the system picks, says which on stderr (`tapedeck: listening on 127.0.0.1:<port>`),
serves AG-UI at /agent, and stops on SIGTERM or SIGINT. Run by test/peers/ag-ui-servers.ts from the venv of
test/peers/python/agui-pydantic.lock.
"""

import json
import os
import socket
import sys

import uvicorn
from ag_ui.core import EventType, StateSnapshotEvent
from pydantic import BaseModel
from pydantic_ai import Agent, RunContext, ToolReturn
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.ui import StateDeps
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route


class Notes(BaseModel):
    notes: list[str] = []


model = OpenAIChatModel(
    "mock-model",
    provider=OpenAIProvider(base_url=os.environ["MOCK_MODEL_URL"], api_key="tapedeck-mock-model"),
)
agent = Agent(model, deps_type=StateDeps[Notes], instructions="Answer briefly. Use your tools when asked.")


@agent.tool_plain
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return json.dumps({"city": city, "temp": 21, "unit": "C"})


@agent.tool
def remember_note(ctx: RunContext[StateDeps[Notes]], note: str) -> ToolReturn:
    """Keeps a note in the shared state."""
    ctx.deps.state.notes.append(note)
    snapshot = StateSnapshotEvent(type=EventType.STATE_SNAPSHOT, snapshot=ctx.deps.state.model_dump())
    return ToolReturn(return_value="noted", metadata=[snapshot])


async def run(request: Request):
    return await AGUIAdapter.dispatch_request(request, agent=agent, deps=StateDeps(Notes()))


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    # Listening before it says so: a client that dials at once waits in the backlog until uvicorn accepts.
    sock.listen(128)
    print(f"tapedeck: listening on 127.0.0.1:{sock.getsockname()[1]}", file=sys.stderr, flush=True)
    app = Starlette(routes=[Route("/agent", run, methods=["POST"])])
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
