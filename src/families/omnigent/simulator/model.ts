/** What the scripted model does with a prompt; the probes' prompts each map to one script. */
export type Script =
  | { kind: 'reply'; text: string }
  | { kind: 'count'; lines: string[] }
  | { kind: 'essay'; text: string }
  | { kind: 'tool'; command: string };

const WORDS = [
  'One',
  'Two',
  'Three',
  'Four',
  'Five',
  'Six',
  'Seven',
  'Eight',
  'Nine',
  'Ten',
  'Eleven',
  'Twelve',
  'Thirteen',
  'Fourteen',
  'Fifteen',
  'Sixteen',
  'Seventeen',
  'Eighteen',
  'Nineteen',
  'Twenty',
];

const ESSAY = Array.from(
  { length: 12 },
  (_, i) => `Paragraph ${i + 1}: computing grew from tabulating machines to stored programs, then to networks and models. `,
).join('');

/** Chooses the deterministic answer to a prompt. */
export function scriptFor(prompt: string): Script {
  const marker = /literal string (\S+)/.exec(prompt);
  if (marker?.[1]) return { kind: 'reply', text: marker[1] };
  if (/count from 1 to 20/i.test(prompt)) return { kind: 'count', lines: WORDS.map((w) => `${w}\n`) };
  if (/essay/i.test(prompt)) return { kind: 'essay', text: ESSAY };
  const command = /run this exact command: (.+)$/m.exec(prompt);
  if (command?.[1]) return { kind: 'tool', command: command[1].trim() };
  return { kind: 'reply', text: 'This is the tapedeck omnigent simulator.' };
}
