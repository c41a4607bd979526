import type { MockRule } from '../../mock-model/index.js';

/**
 * What the mock model answers the AG-UI probes' default messages with, when a real AG-UI server runs on it: a call
 * of the server's weather tool, of the tool the client offers, and of a notes tool that keeps state.
 */
export const AG_UI_MOCK_RULES: readonly MockRule[] = [
  ({ userText, tools }) =>
    /\bweather\b/i.test(userText) && tools.includes('get_weather')
      ? { kind: 'tool', name: 'get_weather', args: { city: 'Paris' } }
      : undefined,
  ({ userText, tools }) =>
    /\bconfirm\b/i.test(userText) && tools.includes('confirm_action')
      ? { kind: 'tool', name: 'confirm_action', args: { action: 'delete the draft' } }
      : undefined,
  ({ userText, tools }) =>
    /\bremember\b/i.test(userText) && tools.includes('remember_note')
      ? { kind: 'tool', name: 'remember_note', args: { note: 'favourite colour is green' } }
      : undefined,
];
