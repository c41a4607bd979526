import { ToolSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import { UsageError } from '../../errors.js';

/**
 * What each probe sends. What makes a server call a tool or keep state is its own (its model, its prompts), so each
 * probe's message is an input a team can give (`bench record --input FILE`); these are the defaults.
 */
export const probeInputsSchema = z.strictObject({
  run: z.strictObject({ message: z.string().min(1) }).optional(),
  backend_tool: z.strictObject({ message: z.string().min(1) }).optional(),
  frontend_tool: z
    .strictObject({
      message: z.string().min(1),
      tool: ToolSchema.optional(),
      /** What the client answers the call with, sent back in a second run. */
      result: z.string().optional(),
    })
    .optional(),
  second_run: z.strictObject({ message: z.string().min(1), followUp: z.string().min(1) }).optional(),
  state: z.strictObject({ message: z.string().min(1), state: z.record(z.string(), z.unknown()).optional() }).optional(),
  /** Sent as `forwardedProps` in every run (a server's own switches). */
  forwardedProps: z.record(z.string(), z.unknown()).optional(),
});
export type ProbeInputs = z.infer<typeof probeInputsSchema>;

/** A frontend tool the client offers: the server should end its run with a call of it for the client to make. */
const CONFIRM_TOOL = {
  name: 'confirm_action',
  description: 'Ask the user to confirm an action in the UI; returns their answer.',
  parameters: {
    type: 'object',
    properties: { action: { type: 'string', description: 'what the user is asked to confirm' } },
    required: ['action'],
  },
};

/** Each probe's input with the defaults filled in. */
export function resolveInputs(given: ProbeInputs = {}) {
  return {
    run: given.run ?? { message: 'Say hello in one short sentence.' },
    backendTool: given.backend_tool ?? { message: 'What is the weather in Paris? Use your weather tool.' },
    frontendTool: {
      message: given.frontend_tool?.message ?? 'Ask me to confirm deleting the draft, with the confirm_action tool.',
      tool: given.frontend_tool?.tool ?? CONFIRM_TOOL,
      result: given.frontend_tool?.result ?? 'confirmed',
    },
    secondRun: given.second_run ?? { message: 'My name is Ada. Say hello.', followUp: 'What is my name?' },
    state: given.state ?? { message: 'Remember that my favourite colour is green, in your state.', state: {} },
    forwardedProps: given.forwardedProps ?? {},
  };
}
export type ResolvedInputs = ReturnType<typeof resolveInputs>;

/** Reads `--input`'s parsed document; a wrong field is a one-line usage error naming it and the shape. */
export function parseProbeInputs(value: unknown, where: string): ProbeInputs {
  const parsed = probeInputsSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.join('.') || '(top level)';
  throw new UsageError(
    `${where}: ${path}: ${issue?.message ?? 'invalid'}; the ag-ui inputs are run, backend_tool, frontend_tool, second_run, state (each with a message) and forwardedProps (see docs/guide/ag-ui.md)`,
  );
}
