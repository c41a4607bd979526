import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { doorRequest, pathOfUrl } from '../../src/replayer/door-request.js';

describe('what a door hands the engine', () => {
  it('the path and query of a URL, as new URL gives them, for any URL a fetch Request can hold', () => {
    const part = fc.constantFrom(...'az09/?#=&%.~:@!$'.split(''), '%2F', '%3F', '..', '//', 'é', ' ');
    const tail = fc.array(part, { maxLength: 10 }).map((parts) => parts.join(''));
    const origin = fc.constantFrom('http://127.0.0.1:8080', 'https://example.test', 'http://u:p@h.test:1');
    fc.assert(
      fc.property(origin, tail, (o, t) => {
        let url: URL;
        try {
          url = new URL(`${o}${t}`);
        } catch {
          return;
        }
        // A Request's url is the serialized form: what the door is given.
        expect(pathOfUrl(url.href)).toBe(`${url.pathname}${url.search}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('copies the headers once, and only when they are read', () => {
    let reads = 0;
    const request = doorRequest('GET', '/a', new Uint8Array(0), () => {
      reads += 1;
      return { accept: 'application/json' };
    });
    expect(reads).toBe(0);
    expect(request.headers.accept).toBe('application/json');
    expect(request.headers.accept).toBe('application/json');
    expect(reads).toBe(1);
  });
});
