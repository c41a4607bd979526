"""An AG-UI server of the LangGraph project (ag-ui-langgraph 0.0.47 on langgraph), for the ag-ui family's peers.

A chat graph whose model is tapedeck's mock model (OpenAI chat completions at $MOCK_MODEL_URL, through
langchain-openai), so its runs are scripted and offline: a weather tool and a notes tool run by a ToolNode, the
notes kept in the graph's state, and any tool the client offers bound beside them (a call of one ends the run for
the client). Listens on 127.0.0.1 on a port the system picks, says which on stderr
(`tapedeck: listening on 127.0.0.1:<port>`), serves AG-UI at /agent, and stops on SIGTERM or SIGINT.
Run by test/peers/ag-ui-servers.ts from the venv of test/peers/python/agui-langgraph.lock.
"""

import json
import os
import socket
import sys
from typing import Any

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.messages import SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode


class AgentState(MessagesState):
    tools: list[Any]
    notes: list[str]


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return json.dumps({"city": city, "temp": 21, "unit": "C"})


@tool
def remember_note(note: str) -> str:
    """Keeps a note in the shared state."""
    return "noted"


BACKEND = [get_weather, remember_note]
model = ChatOpenAI(model="mock-model", base_url=os.environ["MOCK_MODEL_URL"], api_key="tapedeck-mock-model", streaming=True)


async def chat(state: AgentState, config):
    bound = model.bind_tools([*state.get("tools", []), *BACKEND])
    reply = await bound.ainvoke([SystemMessage("Answer briefly. Use your tools when asked."), *state["messages"]], config)
    return {"messages": [reply]}


def keep_notes(state: AgentState):
    notes = list(state.get("notes") or [])
    for message in reversed(state["messages"]):
        if getattr(message, "type", "") != "ai":
            continue
        notes += [c["args"].get("note", "") for c in message.tool_calls if c["name"] == "remember_note"]
        break
    return {"notes": notes}


def route(state: AgentState):
    calls = getattr(state["messages"][-1], "tool_calls", None) or []
    return "tools" if calls and all(c["name"] in {t.name for t in BACKEND} for c in calls) else END


graph = StateGraph(AgentState)
graph.add_node("chat", chat)
graph.add_node("tools", ToolNode(BACKEND))
graph.add_node("keep_notes", keep_notes)
graph.add_edge(START, "chat")
graph.add_conditional_edges("chat", route, ["tools", END])
graph.add_edge("tools", "keep_notes")
graph.add_edge("keep_notes", "chat")
compiled = graph.compile(checkpointer=MemorySaver())


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    # Listening before it says so: a client that dials at once waits in the backlog until uvicorn accepts.
    sock.listen(128)
    print(f"tapedeck: listening on 127.0.0.1:{sock.getsockname()[1]}", file=sys.stderr, flush=True)
    app = FastAPI()
    add_langgraph_fastapi_endpoint(app, LangGraphAgent(name="tapedeck", graph=compiled), "/agent")
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
