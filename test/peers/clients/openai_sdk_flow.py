"""Two streamed chat turns and one whole answer driven by the official openai SDK (not our code) against an
OpenAI-compatible gateway, printing what its user sees.

    python openai_sdk_flow.py BASE_URL

The key comes from $HERMES_API_KEY, never from the command line. Run live through `bench proxy` and against `bench
replay` of that recording: the outputs must be identical.
"""
import os
import sys

from openai import OpenAI

TURNS = ["Say hello.", "Read missing.txt and tell me what it says."]


def main(base_url: str) -> None:
    client = OpenAI(base_url=f"{base_url}/v1", api_key=os.environ["HERMES_API_KEY"], max_retries=0, timeout=60)
    models = client.models.list()
    model = models.data[0].id
    print("models:", [m.id for m in models.data])
    for prompt in TURNS:
        print("turn:", prompt)
        stream = client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}], stream=True)
        text = ""
        finish = None
        for chunk in stream:
            # The gateway also streams chunks of its own (tool progress) with no choices: the SDK passes them on.
            for choice in chunk.choices or []:
                text += choice.delta.content or ""
                finish = choice.finish_reason or finish
        print("  text:", text)
        print("  finish:", finish)
    whole = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Say hello."}])
    print("whole:", whole.choices[0].message.content, whole.choices[0].finish_reason)


if __name__ == "__main__":
    main(sys.argv[1])
