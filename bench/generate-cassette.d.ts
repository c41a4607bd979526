import type { Cassette } from '../src/cassette/index.js';

/** A synthetic cassette shaped like a bench recording, `count` interactions, deterministic. */
export function generateCassette(count: number): Cassette;
