import { describe, expect, it } from 'vitest';
import { folderReplacer, folderRestorer } from '../../src/cassette/index.js';

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

  it('names the host name by placeholder as a whole token, and restores it', () => {
    const folders = { workspace: '/work/main', home: '/home/ana', tmp: '/tmp', host: 'build-7' };
    const withHost = folderReplacer(folders);
    expect(withHost('{"serverName":"build-7"}')).toBe('{"serverName":"<host>"}');
    expect(withHost('build-7.local build-70 rebuild-7 /tmp/build-7')).toBe('<host>.local build-70 rebuild-7 <tmp>/build-7');
    expect(folderRestorer(folders)('<host> at <tmp>')).toBe('build-7 at /tmp');
  });

  it('leaves localhost and addresses alone: they name no machine', () => {
    expect(folderReplacer({ workspace: '/w', home: '/h', tmp: '/t', host: 'localhost' })('localhost')).toBe('localhost');
    expect(folderReplacer({ workspace: '/w', home: '/h', tmp: '/t', host: '10.0.0.1' })('10.0.0.1')).toBe('10.0.0.1');
  });
});
