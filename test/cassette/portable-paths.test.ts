import { describe, expect, it } from 'vitest';
import { folderReplacer } from '../../src/cassette/index.js';

describe('portable paths', () => {
  const replace = folderReplacer({ workspace: '/work/main', home: '/home/ana', tmp: '/tmp' });

  it('names the workspace, home and temp folders by placeholder', () => {
    expect(replace('/work/main/cassettes/x.yaml')).toBe('<workspace>/cassettes/x.yaml');
    expect(replace('{"workspace":"/tmp/tapedeck-bench/kiro-native"}')).toBe('{"workspace":"<tmp>/tapedeck-bench/kiro-native"}');
    expect(replace('cd /home/ana && ls')).toBe('cd <home> && ls');
  });

  it('replaces whole path prefixes only', () => {
    expect(replace('/var/tmp/x')).toBe('/var/tmp/x');
    expect(replace('/tmpfoo/x')).toBe('/tmpfoo/x');
    expect(replace('/work/mainline')).toBe('/work/mainline');
  });

  it('prefers the longest folder when one holds another', () => {
    const nested = folderReplacer({ workspace: '/home/ana/project', home: '/home/ana', tmp: '/tmp' });
    expect(nested('/home/ana/project/a /home/ana/b')).toBe('<workspace>/a <home>/b');
  });
});
