import { afterAll } from 'vitest';

/**
 * Set up before every test file (vitest.config.ts): a listener leak anywhere
 * in the file (an abort listener per stream event, say) fails the file, not
 * just a line in the log nobody reads.
 */
const leaks: string[] = [];
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning') leaks.push(warning.message);
});

afterAll(async () => {
  // Warnings are emitted on a later tick than the code that caused them.
  await new Promise((resolve) => setImmediate(resolve));
  if (leaks.length > 0) throw new Error(`MaxListenersExceededWarning: ${leaks.join('; ')}`);
});
