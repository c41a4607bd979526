import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startFamilyMockModel } from '../../src/probing/index.js';
import { startListening } from './listening.js';

/**
 * The real AG-UI servers the peers run, of two projects: pydantic-ai's AGUIAdapter and LangGraph's ag-ui-langgraph,
 * each a small agent (test/peers/clients/agui_*_server.py) on tapedeck's mock model, on a free 127.0.0.1 port it
 * says on stderr (`tapedeck: listening on 127.0.0.1:<port>`).
 */
const HERE = import.meta.dirname;

export interface AgUiServer {
  name: string;
  /** Its committed recordings: cassettes/<folder>. */
  folder: string;
  python: string;
  script: string;
}

const server = (name: string, folder: string, venv: string, script: string): AgUiServer => ({
  name,
  folder,
  python: join(HERE, 'python', venv, '.venv', 'bin', 'python'),
  script: join(HERE, 'clients', script),
});

export const PYDANTIC_AI = server('pydantic-ai 2.78.0', 'ag-ui-pydantic-real', 'agui-pydantic', 'agui_pydantic_server.py');
export const LANGGRAPH = server('ag-ui-langgraph 0.0.47', 'ag-ui-langgraph-real', 'agui-langgraph', 'agui_langgraph_server.py');

/** Starts the mock model and `s` on it; `cleanups` stops both (the server by its PID). Resolves to the agent's endpoint. */
export async function startAgUiServer(s: AgUiServer, cleanups: (() => Promise<unknown>)[]): Promise<{ url: string; child: ChildProcess }> {
  if (!existsSync(s.python)) throw new Error(`${s.name} is not installed at ${s.python}; run npm run test:peers`);
  const model = await startFamilyMockModel();
  cleanups.push(() => model.close());
  const { port, child } = await startListening(
    s.name,
    [s.python, s.script],
    { env: { ...process.env, MOCK_MODEL_URL: model.baseUrl } },
    cleanups,
  );
  return { url: `http://127.0.0.1:${port}/agent`, child };
}

/** An older release of the pydantic-ai server, on the pinned release's dependencies where it can take them, for drift. */
export const PYDANTIC_AI_2_60 = server('pydantic-ai 2.60.0', 'ag-ui-pydantic-real', 'agui-pydantic-2.60.0', 'agui_pydantic_server.py');
