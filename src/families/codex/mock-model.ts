import type { MockRule } from '../../mock-model/index.js';
import { runCommandRule } from '../shared/run-command-rule.js';

/** One item id for every turn asking for "the same reply", paced so turns running at once interleave their deltas. */
export const SAME_REPLY_ID = 'msg_mock_same';
const SAME_REPLY_PACE_MS = 20;

/** A command for the approval probes; the two_threads probe's turns all get the same item id, as a real model may give. */
export const CODEX_MOCK_RULES: readonly MockRule[] = [
  runCommandRule,
  ({ userText }) =>
    /\bthe same reply\b/.test(userText)
      ? { kind: 'text', words: ['Hello ', 'from ', 'mock.'], paceMs: SAME_REPLY_PACE_MS, itemId: SAME_REPLY_ID }
      : undefined,
];
