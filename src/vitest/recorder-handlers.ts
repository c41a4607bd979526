import { bypass, http } from 'msw';
import { appendRecording, type Cassette, writeCassetteAtomic } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import { recordingDispatcher, startRecordingProxy } from '../recorder/index.js';

/**
 * Where `useCassette` records: `in-process` (the default) records in the test's process, as undici's SnapshotAgent
 * does, with no extra hop; `proxy` sends each request through a recording proxy, as `bench proxy` records any client.
 */
export type RecordVia = 'in-process' | 'proxy';

/** A live recording of one origin: sends a request to it, recorded, and hands over the cassette when closed. */
interface LiveRecording {
  send(request: Request, url: URL, body: ArrayBuffer | null): Promise<Response>;
  close(): Promise<Cassette>;
}

async function liveRecording(origin: string, via: RecordVia): Promise<LiveRecording> {
  if (via === 'proxy') {
    const proxy = await startRecordingProxy({ target: origin });
    return {
      send: (request, url, body) =>
        fetch(bypass(new Request(`${proxy.url}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body }))),
      close: () => proxy.close(),
    };
  }
  const recorder = await recordingDispatcher({ target: origin });
  return {
    send: (request, url, body) =>
      fetch(bypass(new Request(url, { method: request.method, headers: request.headers, body })), {
        dispatcher: recorder,
      } as unknown as RequestInit),
    async close() {
      await recorder.close();
      return recorder.cassette();
    },
  };
}

/**
 * Records through MSW: each request goes, unintercepted, to the server it was meant for (recorded in-process or
 * through a recording proxy), and its answer (streams as they come) goes back to the test; the cassette is saved
 * when the scope ends, after `base` when one is given.
 */
export function recorderHandlers(file: string, via: RecordVia = 'in-process') {
  let live: Promise<LiveRecording> | undefined;
  let origin: string | undefined;
  const forward = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    origin ??= url.origin;
    if (url.origin !== origin)
      throw new UsageError(`useCassette records one server per cassette: ${file} records ${origin}, not ${url.origin}`);
    live ??= liveRecording(origin, via);
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : await request.arrayBuffer();
    const answer = await (await live).send(request, url, body);
    // fetch decoded the body: the coding and length no longer describe what goes back.
    const headers = new Headers(answer.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
  };
  return {
    forward,
    handler: http.all('*', ({ request }) => forward(request)),
    async save(base?: Cassette): Promise<Cassette | undefined> {
      if (!live) return undefined;
      const recorded = await (await live).close();
      live = undefined;
      const cassette = base ? appendRecording(base, recorded) : recorded;
      await writeCassetteAtomic(file, cassette);
      return cassette;
    },
  };
}
