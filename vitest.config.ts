import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    setupFiles: ['test/helpers/no-listener-leak.ts'],
    // test/peers/*.peer.ts (the real vendor servers) run under `npm run test:peers`, with their own install.
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
