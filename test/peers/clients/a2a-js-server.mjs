// An A2A agent on the official JavaScript SDK (@a2a-js/sdk 1.3.0, its DefaultRequestHandler and Express JSON-RPC
// handler), for the a2a family's peers. It answers a message with a task: submitted, working, its reply streamed as
// an artifact in two chunks, completed; a message asking for something slow works until cancelled (or 10 s). Listens
// on 127.0.0.1 on a port the system picks and says which on stderr (`tapedeck: listening on 127.0.0.1:<port>`);
// serves the agent card at /.well-known/agent-card.json and JSON-RPC at /a2a/jsonrpc. Run by test/peers/a2a-servers.ts.
import { randomUUID } from 'node:crypto';
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';

const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Executor {
  cancelled = new Set();
  cancelTask = async (taskId) => {
    this.cancelled.add(taskId);
  };
  async execute(context, bus) {
    const { taskId, contextId, userMessage } = context;
    const asked = userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    const status = (state) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, timestamp: new Date().toISOString(), message: undefined },
        metadata: undefined,
      });
    try {
      if (!context.task)
        bus.publish(
          AgentEvent.task({
            id: taskId,
            contextId,
            status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
            artifacts: [],
            history: [userMessage],
            metadata: undefined,
          }),
        );
      bus.publish(status(TaskState.TASK_STATE_WORKING));
      if (/\bslow\b/i.test(asked)) {
        for (let i = 0; i < 100 && !this.cancelled.has(taskId); i++) await sleep(100);
        if (this.cancelled.has(taskId)) {
          bus.publish(status(TaskState.TASK_STATE_CANCELED));
          return;
        }
      }
      const artifactId = randomUUID();
      const reply = `You said: ${asked}`;
      const half = Math.ceil(reply.length / 2);
      const chunk = (value, append, lastChunk) =>
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId, name: 'reply', description: '', parts: [text(value)], metadata: undefined, extensions: [] },
          append,
          lastChunk,
          metadata: undefined,
        });
      bus.publish(chunk(reply.slice(0, half), false, false));
      await sleep(20);
      bus.publish(chunk(reply.slice(half), true, true));
      bus.publish(status(TaskState.TASK_STATE_COMPLETED));
    } finally {
      this.cancelled.delete(taskId);
      bus.finished();
    }
  }
}

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const port = server.address().port;
  const card = {
    name: 'tapedeck A2A example (JS SDK)',
    description: 'Answers with what it was told, as a streamed artifact; works slowly when asked.',
    supportedInterfaces: [{ url: `http://127.0.0.1:${port}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Says back what it was told',
        tags: ['echo'],
        examples: ['hello'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new Executor());
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  process.stderr.write(`tapedeck: listening on 127.0.0.1:${port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
