/**
 * Soak-sized loops run under `npm run test:soak` (TAPEDECK_SOAK=1, its own
 * config with long timeouts); `npm test` runs the same tests a few times, so
 * it checks the same behaviour without depending on a quiet machine.
 */
export const SOAK = process.env.TAPEDECK_SOAK === '1';

/** How many times a loop runs: `quick` under `npm test`, `soak` under `npm run test:soak`. */
export const runsOf = (quick: number, soak: number): number => (SOAK ? soak : quick);
