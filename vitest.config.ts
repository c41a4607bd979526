import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs both projects; `npm run test:unit` only the first, which answers in well under a minute.
 * test/peers/*.peer.ts (the real vendor servers) run under `npm run test:peers`, with their own install.
 */
export default defineConfig({
  test: {
    setupFiles: ['test/helpers/no-listener-leak.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          // Pure modules over real files: no process, no socket, no server (test/architecture checks the imports).
          name: 'unit',
          include: ['test/**/*.unit.test.ts'],
          // One process for all of them: importing the stages again for each file was a third of the time.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // Real servers on 127.0.0.1, real processes (`npx bench`), real clients.
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts', '**/node_modules/**'],
        },
      },
    ],
  },
});
