import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { WsFrame } from '../../cassette/index.js';
import { UsageError } from '../../errors.js';

/**
 * The codex app-server protocol as a pinned binary describes it
 * (`codex app-server generate-json-schema --out DIR`), turned into zod schemas
 * per method: the reference says to take the contract from the binary rather
 * than maintain it by hand. Checks every JSON-RPC frame of a recorded session:
 * requests and notifications both ways, and each response against the result
 * type of the request it answers.
 */
export interface CodexProtocol {
  /** One finding per frame that does not fit its method's schema, or whose method the protocol does not know. */
  check(frames: readonly WsFrame[]): ProtocolFinding[];
}

export interface ProtocolFinding {
  /** Index of the frame in the session. */
  frame: number;
  from: 'client' | 'server';
  /** The method, or `response to METHOD`. */
  what: string;
  issues: string[];
}

type Schemas = Map<string, z.ZodType>;
type Doc = { $schema?: string; definitions?: Record<string, unknown>; oneOf?: Record<string, unknown>[] };

/** Whether a message is a request, a notification or a response, from whom. */
const UNIONS = ['ClientRequest', 'ClientNotification', 'ServerRequest', 'ServerNotification'] as const;

async function readDoc(dir: string, ...names: string[]): Promise<Doc | undefined> {
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) return JSON.parse(text) as Doc;
  }
  return undefined;
}

/** A zod schema of one branch (or one whole document), with the document's definitions to resolve `$ref`s. */
const compile = (doc: Doc, branch: Record<string, unknown> = doc) =>
  z.fromJSONSchema({ $schema: doc.$schema, definitions: doc.definitions, ...branch } as Parameters<typeof z.fromJSONSchema>[0]);

/** The `#/definitions/NameParams` a request branch refers to, as `Name`. */
const paramsName = (branch: Record<string, unknown>) =>
  /#\/definitions\/(\w+)Params$/.exec(String((branch.properties as { params?: { $ref?: string } } | undefined)?.params?.$ref ?? ''))?.[1];

/** Loads the schema folder `generate-json-schema` wrote; a folder without it is a UsageError naming the command. */
export async function loadCodexProtocol(dir: string): Promise<CodexProtocol> {
  const messages: Schemas = new Map();
  const results: Schemas = new Map();
  for (const union of UNIONS) {
    const doc = await readDoc(dir, `${union}.json`);
    if (!doc?.oneOf)
      throw new UsageError(`${dir}: no ${union}.json; write the schema with: codex app-server generate-json-schema --out ${dir}`);
    for (const branch of doc.oneOf) {
      const method = (branch.properties as { method?: { enum?: string[] } } | undefined)?.method?.enum?.[0];
      if (!method) continue;
      messages.set(`${union}:${method}`, compile(doc, branch));
      // A request's result type is its params type's sibling: ThreadStartParams → ThreadStartResponse.
      const name = union.endsWith('Request') ? paramsName(branch) : undefined;
      const result = name && (await readDoc(dir, `${name}Response.json`, `v2/${name}Response.json`, `v1/${name}Response.json`));
      if (result) results.set(`${union}:${method}`, compile(result));
    }
  }
  return {
    check(frames) {
      const findings: ProtocolFinding[] = [];
      // Request id → method, per direction: a response answers the other side's request.
      const asked = { client: new Map<string, string>(), server: new Map<string, string>() };
      frames.forEach((f, i) => {
        const msg = f.json as Record<string, unknown> | undefined;
        if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return;
        // Live notifications carry the server's clock beside the params; the schema leaves it out.
        const { emittedAtMs: _clock, ...body } = msg;
        const id = 'id' in body ? JSON.stringify(body.id) : undefined;
        let key: string;
        let what: string;
        let schema: z.ZodType | undefined;
        if (typeof body.method === 'string') {
          const union = `${f.from === 'client' ? 'Client' : 'Server'}${id === undefined ? 'Notification' : 'Request'}`;
          key = `${union}:${body.method}`;
          what = body.method;
          schema = messages.get(key);
          if (id !== undefined) asked[f.from].set(id, key);
        } else {
          const request = id === undefined ? undefined : asked[f.from === 'client' ? 'server' : 'client'].get(id);
          if (!request || 'error' in body) return;
          key = request;
          what = `response to ${request.split(':')[1]}`;
          schema = results.get(request);
          if (!schema) return;
          const result = schema.safeParse(body.result);
          if (!result.success) findings.push({ frame: i, from: f.from, what, issues: issuesOf(result.error) });
          return;
        }
        if (!schema) {
          findings.push({ frame: i, from: f.from, what, issues: [`${key.split(':')[0]} has no method ${what} in this protocol`] });
          return;
        }
        const result = schema.safeParse(body);
        if (!result.success) findings.push({ frame: i, from: f.from, what, issues: issuesOf(result.error) });
      });
      return findings;
    },
  };
}

const issuesOf = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
