import { afterAll } from 'vitest';

/**
 * Set up before every test file (vitest.config.ts): a listener leak anywhere
 * in the file (an abort listener per stream event, say) fails the file, not
 * just a line in the log nobody reads. The unit project runs its files in one
 * process (no isolation), so the listener is added once per process and each
 * file takes the leaks seen since the previous one.
 */
const LEAKS = Symbol.for('tapedeck.test.listener-leaks');
const holder = globalThis as { [LEAKS]?: string[] };
if (!holder[LEAKS]) {
  const leaks: string[] = [];
  holder[LEAKS] = leaks;
  process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning') leaks.push(warning.message);
  });
}
const leaks = holder[LEAKS];

afterAll(async () => {
  // Warnings are emitted on a later tick than the code that caused them.
  await new Promise((resolve) => setImmediate(resolve));
  const found = leaks.splice(0);
  if (found.length > 0) throw new Error(`MaxListenersExceededWarning: ${found.join('; ')}`);
});
