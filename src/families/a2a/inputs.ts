import { z } from 'zod';
import type { Cassette } from '../../cassette/index.js';
import { UsageError } from '../../errors.js';

/** What the probes say to the agent (`bench record --input FILE`): a message, and one for a task that takes a while. */
const inputsSchema = z.strictObject({
  message: z.string().min(1).optional(),
  /** For cancel and resubscribe: a task the agent works on long enough to be canceled. */
  slow_message: z.string().min(1).optional(),
});

export interface A2aInputs {
  message: string;
  slowMessage: string;
}

/** `--input`'s document checked, with the defaults filled in; a wrong field is a one-line usage error naming it. */
export function resolveInputs(value: unknown, where = '--input'): A2aInputs {
  const parsed = inputsSchema.safeParse(value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `${where}: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}; the a2a inputs are message and slow_message (see docs/guide/a2a.md)`,
    );
  }
  return {
    message: parsed.data.message ?? 'Hello, agent: say something back.',
    slowMessage: parsed.data.slow_message ?? 'Take it slow: count to ten, then say done.',
  };
}

/** The inputs a recording was made with, read back from its SendMessage requests, so a replay sends the same. */
export function recordedInputs(probe: string, cassette: Cassette): A2aInputs {
  const texts = cassette.interactions.flatMap((i) => {
    const json = (i.request.body as { json?: { method?: unknown; params?: { message?: { parts?: { text?: unknown }[] } } } } | undefined)
      ?.json;
    const text = json?.params?.message?.parts?.[0]?.text;
    return /^Send(Streaming)?Message$/.test(String(json?.method)) && typeof text === 'string' ? [text] : [];
  });
  const defaults = resolveInputs({});
  const first = texts[0];
  if (first === undefined) return defaults;
  return probe === 'cancel' || probe === 'resubscribe' ? { ...defaults, slowMessage: first } : { ...defaults, message: first };
}
