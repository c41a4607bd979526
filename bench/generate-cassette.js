/**
 * Builds a synthetic cassette shaped like a bench recording: JSON requests and
 * responses (session snapshots, item pages) and SSE streams, deterministically.
 */
export function generateCassette(count) {
  const interactions = [];
  for (let i = 0; i < count; i++) {
    const seq = i + 1;
    const at = i * 3.25;
    const request = {
      method: i % 3 === 0 ? 'POST' : 'GET',
      path: i % 3 === 0 ? `/v1/sessions/${hex(i)}/events` : `/v1/sessions/${hex(i)}/items?order=asc`,
      headers: { accept: 'application/json', 'content-type': 'application/json', origin: 'omnigent://internal' },
    };
    if (i % 3 === 0) {
      request.body = { json: { type: 'message', data: { role: 'user', content: [{ type: 'input_text', text: `prompt ${i}` }] } } };
    }
    const response =
      i % 10 === 5
        ? {
            status: 200,
            headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
            stream: {
              end: 'server-closed',
              events: Array.from({ length: 5 }, (_, k) => ({
                at: at + k,
                after: seq,
                event: 'response.output_text.delta',
                data: JSON.stringify({
                  sequence_number: k,
                  type: 'response.output_text.delta',
                  delta: `word ${k} `,
                  message_id: `msg_${hex(i)}`,
                  index: k,
                  final: false,
                }),
              })),
            },
          }
        : {
            status: i % 3 === 0 ? 202 : 200,
            headers: { 'content-type': 'application/json', 'content-length': '123' },
            body: {
              json:
                i % 3 === 0
                  ? { queued: true, pending_id: `pending_${hex(i)}` }
                  : {
                      object: 'list',
                      data: [
                        {
                          id: hex(i + 1),
                          response_id: `resp_${hex(i)}`,
                          type: 'message',
                          status: 'completed',
                          created_at: 1787000000 + i,
                          role: 'assistant',
                          model: 'kiro-native-ui',
                          content: [{ type: 'output_text', text: `KIRO_NATIVE_OK ${i}` }],
                        },
                      ],
                      first_id: hex(i + 1),
                      last_id: hex(i + 1),
                      has_more: false,
                    },
            },
          };
    interactions.push({ seq, request, response, timing: { start: at, headers: at + 1.5, end: at + 2.75 } });
  }
  return {
    version: 1,
    meta: {
      recorder: 'tapedeck bench',
      target: 'http://127.0.0.1:6767',
      recordedAt: '2026-01-01T00:00:00.000Z',
      labels: { harness: 'kiro-native' },
    },
    interactions,
  };
}

function hex(n) {
  return n.toString(16).padStart(32, '0');
}
