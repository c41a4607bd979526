import { type Interaction, readJson } from '../cassette/index.js';
import type { IssuedValues } from './issued.js';
import type { Step } from './plan.js';
import type { Answer } from './send.js';

/**
 * What changed between a poll's first recorded answer and its last: the fields (and status) the client waited on.
 * A field holds a word (a state such as `completed`), a flag or null to be matched; any other value (an id, a
 * count, a time) only has to be there, since the new server's differs.
 */
export interface PollCondition {
  status?: number | undefined;
  fields: { path: string[]; value: unknown; present?: true }[];
}

const isWord = (v: unknown) => v === null || typeof v === 'boolean' || (typeof v === 'string' && /^[A-Za-z_][A-Za-z_ -]{0,31}$/.test(v));

/** A recorded answer's body as a re-run reads it: JSON parsed, other text as it is, bytes left out. */
export const recordedBody = (i: Interaction): unknown => {
  const body = i.response?.body;
  if (body === undefined) return undefined;
  if ('json' in body) return body.json;
  return 'text' in body ? (readJson(body.text)?.json ?? body.text) : undefined;
};

function leaves(value: unknown, path: string[] = [], out = new Map<string, { path: string[]; value: unknown }>()) {
  if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
  else out.set(JSON.stringify(path), { path, value });
  return out;
}

/** The recorded condition of a poll, or undefined when every answer was the same (the client polled a set number of times). */
export function pollCondition(first: Interaction, last: Interaction): PollCondition | undefined {
  const [a, b] = [leaves(recordedBody(first)), leaves(recordedBody(last))];
  const fields = [...b]
    .filter(([k, leaf]) => JSON.stringify(a.get(k)?.value) !== JSON.stringify(leaf.value))
    .map(([, leaf]) => (isWord(leaf.value) ? leaf : { ...leaf, present: true as const }));
  const status = first.response?.status !== last.response?.status ? last.response?.status : undefined;
  return fields.length === 0 && status === undefined ? undefined : { status, fields };
}

const at = (value: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), value);

/** Whether a new answer meets the recorded condition, the recorded values read as the new server's. */
export function conditionHolds(answer: Answer, condition: PollCondition, issued: IssuedValues): boolean {
  if (condition.status !== undefined && answer.status !== condition.status) return false;
  return condition.fields.every((f) => {
    const value = at(answer.body, f.path);
    return f.present ? value !== undefined : JSON.stringify(value) === JSON.stringify(issued.applyJson(f.value));
  });
}

export interface PollRun {
  send(recorded: Interaction): Promise<Answer>;
  learn(recorded: Interaction, answer: Answer): void;
  issued: IssuedValues;
  /** At most this many sends while a recorded change does not show. */
  bound: number;
  report(line: { request: string; recorded: number; sent: number; bound: number; held: boolean | undefined }): void;
}

/** Sends a poll again until the recorded condition holds (or, with none, as often as recorded), never past the bound. */
export async function pollAgain(step: Step, first: Answer, run: PollRun): Promise<Answer> {
  const repeats = step.poll?.repeats ?? [];
  const condition = pollCondition(step.interaction, repeats.at(-1) as Interaction);
  const bound = condition ? Math.max(run.bound, repeats.length + 1) : repeats.length + 1;
  let answer = first;
  let sent = 1;
  while (sent < bound && (condition === undefined || !conditionHolds(answer, condition, run.issued))) {
    await new Promise((r) => setTimeout(r, step.poll?.gapMs ?? 0));
    const recorded = repeats[Math.min(sent - 1, repeats.length - 1)] as Interaction;
    answer = await run.send(recorded);
    run.learn(recorded, answer);
    sent++;
  }
  const request = `${step.interaction.request.method} ${step.interaction.request.path.split('?')[0]}`;
  run.report({
    request,
    recorded: repeats.length + 1,
    sent,
    bound,
    held: condition ? conditionHolds(answer, condition, run.issued) : undefined,
  });
  return answer;
}
