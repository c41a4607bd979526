import { defineConfig } from 'vitest/config';

// `npm run test:soak`: the loops `npm test` runs a few times, at full size, with the time they need.
export default defineConfig({
  test: {
    setupFiles: ['test/helpers/no-listener-leak.ts'],
    include: [
      'test/cli/proxy-survives.test.ts',
      'test/replayer/replay-committed.test.ts',
      'test/drift/drift.test.ts',
      'test/reliability/loader-fuzz.unit.test.ts',
      'test/cli/readme-commands.test.ts',
    ],
    env: { TAPEDECK_SOAK: '1' },
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
