"""One turn driven by the maintainers' omnigent_client SDK (not our code), printing what its user sees.

Run live through `bench proxy` and against `bench replay` of what that recorded: the two outputs must be identical.
"""
import asyncio, sys
from omnigent_client import OmnigentClient

PROMPT = 'Reply with exactly the literal string SDK_OK and nothing else.'

async def main(url: str) -> None:
    async with OmnigentClient(base_url=url) as client:
        sessions = client.sessions
        agent_id = (await sessions.list(agent_name='bench-openai-agents', limit=1))[0].agent_id
        session = await sessions.create_from_agent_id(agent_id)
        runner = await sessions.resolve_online_runner(harness='openai-agents')
        await sessions.bind_runner(session.id, runner_id=runner)
        seen: list[str] = []
        subscribed = asyncio.Event()

        async def read() -> None:
            output = False
            async for event in sessions.stream(session.id):
                kind = event.type
                subscribed.set()
                if kind in ('session.heartbeat', 'response.heartbeat'):
                    continue
                seen.append(kind + (f" {event.delta!r}" if kind == 'response.output_text.delta' else ''))
                output = output or kind == 'response.completed'
                if kind == 'session.status' and getattr(event, 'status', None) == 'idle' and output:
                    return

        reader = asyncio.create_task(read())
        await asyncio.wait_for(subscribed.wait(), 10)
        await sessions.post_event(session.id, {'type': 'message', 'data': {'role': 'user', 'content': [{'type': 'input_text', 'text': PROMPT}]}})
        await asyncio.wait_for(reader, 60)
        items = await sessions.list_items(session.id)
        texts = [p.get('text') for i in items.data if i.get('role') == 'assistant' for p in i.get('content', [])]
        print('\n'.join(seen))
        print('assistant:', texts)

asyncio.run(main(sys.argv[1]))
