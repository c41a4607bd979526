"""The MCP peers' second maker: an example server on the official Python SDK (mcp 2.3.0, where FastMCP is now
MCPServer), with a tool, a long tool that reports progress, a resource, a prompt and a completion.

Listens on 127.0.0.1 on a port the system picks, says which on stderr
(`tapedeck: listening on 127.0.0.1:<port>`), serves Streamable HTTP at /mcp, and stops on SIGTERM or SIGINT.
Run by test/peers/mcp-real-servers.peer.ts from the venv of test/peers/python/mcp-fastmcp.lock.
"""

import socket
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import Completion, PromptReference

server = MCPServer(name="tapedeck-fastmcp-example", version="1.0.0", log_level="WARNING")


@server.tool()
def echo(message: str) -> str:
    """Echoes the message back."""
    return f"Echo: {message}"


@server.tool()
async def long_running_operation(ctx: Context, duration: float = 1.0, steps: int = 4) -> str:
    """Works for `duration` seconds in `steps` steps, reporting progress after each."""
    for step in range(1, steps + 1):
        await anyio.sleep(duration / steps)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"Long running operation completed: {steps} steps in {duration} s"


@server.resource("demo://greeting", mime_type="text/plain")
def greeting() -> str:
    """A fixed greeting."""
    return "Hello from the FastMCP example server"


@server.prompt()
def greet(name: str = "world") -> str:
    """A greeting for someone."""
    return f"Write a one-line greeting for {name}."


CITIES = ["Amsterdam", "Berlin", "Lisbon"]


@server.completion()
async def complete(ref, argument, context):
    if isinstance(ref, PromptReference) and ref.name == "greet" and argument.name == "name":
        return Completion(values=[c for c in CITIES if c.lower().startswith(argument.value.lower())])
    return None


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    print(f"tapedeck: listening on 127.0.0.1:{sock.getsockname()[1]}", file=sys.stderr, flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
