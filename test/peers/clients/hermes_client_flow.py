"""Two chat turns driven by hermes-agent-api-client (a typed third-party client, not our code), printing what its user sees.

Run live through `bench proxy` and against `bench replay` of what that recorded: the two outputs must be identical.
The gateway key comes from $HERMES_API_KEY, never from the command line.
"""
import asyncio, os, sys
from hermes_agent_api_client import HermesAgentApiClient

TURNS = ['Say hello.', 'Read missing.txt and tell me what it says.']

async def main(url: str) -> None:
    key = os.environ['HERMES_API_KEY']
    async with HermesAgentApiClient(url, key) as client:
        caps = await client.probe_capabilities()
        print('capabilities:', caps.object, caps.platform, caps.auth_type, caps.auth_required, caps.chat_completions, caps.chat_completions_streaming)
        for prompt in TURNS:
            print('turn:', prompt)
            request = {'model': caps.model, 'messages': [{'role': 'user', 'content': prompt}], 'stream': True}
            async for event in client.stream_chat_events(request):
                print(' ', type(event).__name__, event.model_dump_json())

asyncio.run(main(sys.argv[1]))
