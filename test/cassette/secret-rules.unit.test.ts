import { describe, expect, it } from 'vitest';
import { isSecretName } from '../../src/cassette/index.js';
import { translateGoRegExp } from '../../src/cassette/redaction/go-regexp.js';
import { secretRules } from '../../src/cassette/redaction/secret-rules.js';

const rules = secretRules();
const kinds = (text: string) => rules.find(text).map((f) => [f.kind, f.value]);

describe('the gitleaks rule set', () => {
  it('loads offline, every pattern rule translated (none left out)', () => {
    expect(rules.skipped).toEqual([]);
    // 221 gitleaks pattern rules (pkcs12-file names files, not text) and our 7.
    expect(rules.size).toBe(221 + 7);
  });

  it('finds the shapes it is adopted for, with gitleaks rule ids', () => {
    const github = `github_pat_${'A1b2C3d4E5'.repeat(8)}Zz`;
    expect(kinds(`token ${github} here`)).toEqual([['github-fine-grained-pat', github]]);
    expect(kinds('key ASIAQY3JZ7VWX2LM5NPR ok')).toEqual([['aws-access-token', 'ASIAQY3JZ7VWX2LM5NPR']]);
    // Ids with 0, 1, 8 or 9, which gitleaks' base32 pattern passes: ours (vendor/gitleaks/UPSTREAM.md).
    expect(kinds('temporary ASIA1234567890ABCDEF here')).toEqual([['aws-access-token', 'ASIA1234567890ABCDEF']]);
    expect(kinds('glpat-Xy9Kq2Lm8Np4Rs7Tv3Wz')[0]?.[0]).toBe('gitlab-pat');
    expect(kinds('pay sk_live_4eC39HqLyjWDarjtT1zdp7dc now')[0]?.[0]).toBe('stripe-access-token');
    expect(kinds(`x xapp-1-A0123456789-1234567890123-${'ab12cd34ef'.repeat(6)}9f0e y`)[0]?.[0]).toBe('slack-app-token');
    const key = `-----BEGIN PRIVATE KEY-----\n${'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'.repeat(3)}\n-----END PRIVATE KEY-----`;
    expect(kinds(key)[0]?.[0]).toBe('private-key');
  });

  it('skips what gitleaks skips: low entropy and its allowlisted examples', () => {
    expect(kinds('AKIAIOSFODNN7EXAMPLE')).toEqual([]);
    expect(kinds(`ghp_${'a'.repeat(36)}`)).toEqual([]);
  });
});

describe('our own rules, for what the set lacks', () => {
  it('sk- keys of any vendor', () => expect(kinds('use sk-abcdefghijklmnop1234 now')).toEqual([['api-key', 'sk-abcdefghijklmnop1234']]));
  it('short JWTs', () => expect(kinds('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbmEifQ.c2lnbmF0dXJlc2ln')[0]?.[0]).toBe('jwt'));
  it('a bearer token in free text, any case', () =>
    expect(kinds('send bearer Abc123Def456Ghi789 ok')).toEqual([['bearer', 'Abc123Def456Ghi789']]));
  it('the password of a URL', () => expect(kinds('dsn postgres://app:hunter2pw@db:5432/x')).toEqual([['url-credentials', 'hunter2pw']]));
  it('name=value for a secret name, in text, forms and fragments', () => {
    expect(kinds('user=ana&password=s3cr3t!x&x=1')).toEqual([['secret-assignment', 's3cr3t!x']]);
    expect(kinds('https://app/cb#access_token=tok123456&state=1')).toEqual([['secret-assignment', 'tok123456']]);
    expect(kinds('max_tokens=123456 and sessionId=abcdef123')).toEqual([]);
  });
  it('a multipart part with a secret name', () => {
    const body = '--b\r\nContent-Disposition: form-data; name="api_key"\r\n\r\nkey-1234567890\r\n--b--\r\n';
    expect(kinds(body)).toEqual([['form-field', 'key-1234567890']]);
  });
});

describe('Go patterns in JavaScript', () => {
  const js = (go: string) => translateGoRegExp(go).source;
  it('spells out case-insensitive stretches, since Node 20 has no inline modifiers', () => {
    expect(js('(?i)ab')).toBe('[aA][bB]');
    expect(js('x(?i)y')).toBe('x[yY]');
    expect(js('(?i)a(?-i:B)c')).toBe('[aA](?:B)[cC]');
    expect(js('(?i:k)K')).toBe('(?:[kK])K');
    expect(js('(?i)[a-f0-9]')).toBe('[a-f0-9a-fA-F]');
  });
  it('POSIX classes, \\z, dot-all groups and lone braces', () => {
    expect(js('[[:alnum:]]{2}')).toBe('[A-Za-z0-9]{2}');
    expect(js('a\\z')).toBe('a$');
    expect(js('(?s:.)')).toBe('(?:[\\s\\S])');
    expect(js('{a}')).toBe('\\{a\\}');
    expect(new RegExp(js('(?i)\\bsecret\\b')).test('SeCrEt')).toBe(true);
  });
});

describe('secret names', () => {
  it('one name in any case and style', () => {
    for (const n of [
      'accessToken',
      'access_token',
      'ACCESS-TOKEN',
      'clientSecret',
      'Password',
      'private_key',
      'api_key',
      'apiKey',
      'id_token',
    ])
      expect(isSecretName(n, 'field'), n).toBe(true);
  });
  it('counts, usage and identifiers stay readable', () => {
    for (const n of ['max_tokens', 'tokenUsage', 'input_tokens', 'sessionId', 'session_key', 'key', 'token_type', 'keys'])
      expect(isSecretName(n, 'field'), n).toBe(false);
  });
  it('headers and query parameters by word families', () => {
    for (const n of ['X-Signature', 'X-Session', 'X-Session-Token', 'X-Amz-Security-Token', 'x-auth', 'X-Goog-Api-Key'])
      expect(isSecretName(n, 'header'), n).toBe(true);
    for (const n of ['Mcp-Session-Id', 'X-Hermes-Session-Id', 'content-type', 'keep-alive'])
      expect(isSecretName(n, 'header'), n).toBe(false);
    for (const n of ['sig', 'X-Amz-Signature', 'X-Amz-Credential', 'key', 'api_key']) expect(isSecretName(n, 'query'), n).toBe(true);
    for (const n of ['page', 'sessionId', 'max_tokens']) expect(isSecretName(n, 'query'), n).toBe(false);
  });
});
