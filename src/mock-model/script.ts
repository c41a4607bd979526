/** `paceMs`: a pause before each delta, so a long reply is still streaming when a client interrupts it. */
export type MockReply =
  | { kind: 'text' | 'after-tool'; words: string[]; paceMs?: number; itemId?: string }
  | { kind: 'tool'; name: string; args: Record<string, string> };

/** What a rule is shown of a model request: the last user text and the names of the tools on offer. */
export interface MockAsk {
  userText: string;
  tools: readonly string[];
}

/** One line of the mock model's script: a reply for the prompts it recognises, undefined for the rest. */
export type MockRule = (ask: MockAsk) => MockReply | undefined;
