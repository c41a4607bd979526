import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { agentBundle, benchAgentConfig, bundleUpload } from '../../../src/families/omnigent/agent-bundle.js';

describe('the agent bundle the full-server driver registers', () => {
  it('is a gzipped tar that GNU tar reads, holding the config as YAML, and the same bytes every time', async () => {
    const config = benchAgentConfig('openai-agents');
    const bundle = agentBundle(config);
    expect(agentBundle(config).equals(bundle)).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-bundle-'));
    await writeFile(join(dir, 'agent.tar.gz'), bundle);
    expect(execFileSync('tar', ['tzf', 'agent.tar.gz'], { cwd: dir }).toString()).toBe('config.yaml\n');
    execFileSync('tar', ['xzf', 'agent.tar.gz'], { cwd: dir });
    expect(parse(await readFile(join(dir, 'config.yaml'), 'utf8'))).toEqual(config);
  });

  it('goes up as multipart form data with a fixed boundary, so a replay matches the registration by content', () => {
    const { body, contentType } = bundleUpload(Buffer.from('BUNDLE'));
    expect(contentType).toBe('multipart/form-data; boundary=tapedeck-bench-agent-bundle');
    const text = body.toString('latin1');
    expect(text).toContain('Content-Disposition: form-data; name="metadata"\r\n\r\n{}\r\n');
    expect(text).toContain('filename="agent.tar.gz"\r\nContent-Type: application/gzip\r\n\r\nBUNDLE\r\n');
    expect(text.endsWith('--tapedeck-bench-agent-bundle--\r\n')).toBe(true);
  });
});
