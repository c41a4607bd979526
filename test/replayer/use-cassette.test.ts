import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findHarness } from '../../src/families/omnigent/harnesses.js';
import { markerFor, PROBES, REPLAY_TIMINGS, SessionDriver } from '../../src/families/omnigent/index.js';
import { useCassette } from '../../src/vitest/index.js';

// A user's test file: the cassette is served through MSW to the global fetch.
const replay = useCassette(join(import.meta.dirname, '..', '..', 'cassettes', 'codex-native', 'basic_turn.yaml'));

describe('useCassette', () => {
  it('serves a driver that uses the global fetch, offline', async () => {
    const harness = findHarness('codex-native');
    if (!harness) throw new Error('no harness');
    const driver = new SessionDriver('http://omnigent.test', harness, REPLAY_TIMINGS);
    await driver.provision();
    const basic = PROBES.find((p) => p.name === 'basic_turn');
    const observation = await basic?.run(driver, 'SUPPORTED');
    expect(observation?.observed).toBe('SUPPORTED');
    expect(observation?.turn?.text).toBe(markerFor('codex-native'));
    await driver.teardown();
    expect(replay.engine.misses).toEqual([]);
    // useCassette's afterAll fails the file if any recorded interaction went unasked.
  });
});
