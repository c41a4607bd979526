import type { Cassette } from '../../cassette/index.js';
import type { ProbeInputs } from './inputs.js';

type Body = { messages?: { role?: string; content?: unknown }[]; tools?: unknown[]; state?: unknown; forwardedProps?: unknown };

/** The JSON bodies of a cassette's POSTs, in order (a body that is not a RunAgentInput object is left out). */
function bodies(cassette: Cassette): Body[] {
  return cassette.interactions.flatMap((i) => {
    const json = (i.request.body as { json?: unknown } | undefined)?.json;
    return i.request.method === 'POST' && json && typeof json === 'object' && !Array.isArray(json) ? [json as Body] : [];
  });
}

/** The last message of a role in a body (the malformed input's messages are a string: none). */
const last = (body: Body | undefined, role: string) =>
  Array.isArray(body?.messages) ? body.messages.filter((m) => m?.role === role).at(-1) : undefined;

const lastUser = (body: Body | undefined) => {
  const content = last(body, 'user')?.content;
  return typeof content === 'string' ? content : undefined;
};

/**
 * What a probe was given when it was recorded, read back from its requests, so a replay sends what the recording
 * holds whatever `--input` said then.
 */
export function recordedInputs(probe: string, cassette: Cassette): ProbeInputs {
  const [first, second] = bodies(cassette);
  const message = lastUser(first);
  const forwarded = first?.forwardedProps as Record<string, unknown> | undefined;
  const common: ProbeInputs = forwarded && Object.keys(forwarded).length > 0 ? { forwardedProps: forwarded } : {};
  if (message === undefined) return common;
  switch (probe) {
    case 'run':
      return { ...common, run: { message } };
    case 'backend_tool':
      return { ...common, backend_tool: { message } };
    case 'frontend_tool': {
      const answer = last(second, 'tool')?.content;
      const tool = (Array.isArray(first?.tools) ? first.tools[0] : undefined) as NonNullable<ProbeInputs['frontend_tool']>['tool'];
      return {
        ...common,
        frontend_tool: { message, ...(tool ? { tool } : {}), ...(typeof answer === 'string' ? { result: answer } : {}) },
      };
    }
    case 'second_run':
      return { ...common, second_run: { message, followUp: lastUser(second) ?? message } };
    case 'state':
      return { ...common, state: { message, state: (first?.state ?? {}) as Record<string, unknown> } };
    default:
      return common;
  }
}
