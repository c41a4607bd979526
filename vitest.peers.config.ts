import { defineConfig } from 'vitest/config';

/** `npm run test:peers`: the real opencode serve and codex app-server, installed in test/peers. */
export default defineConfig({
  test: {
    setupFiles: ['test/helpers/no-listener-leak.ts'],
    include: ['test/peers/*.peer.ts'],
    // Each file starts real servers; one at a time keeps them from competing for two cores.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
