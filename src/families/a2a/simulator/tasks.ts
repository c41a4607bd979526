import type { SeededIds } from '../../../net/seeded-ids.js';

type Json = Record<string, unknown>;
/** One event of a task's stream, as StreamResponse carries it (`{task}`, `{statusUpdate}`, `{artifactUpdate}`). */
export type TaskEvent = Json;

const FINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

interface Task {
  id: string;
  contextId: string;
  state: string;
  history: Json[];
  artifacts: Json[];
  listeners: Set<(e: TaskEvent) => void>;
  timer?: NodeJS.Timeout;
}

const textOf = (message: Json) =>
  ((message.parts as Json[] | undefined) ?? []).map((p) => (typeof p.text === 'string' ? p.text : '')).join(' ');

function viewOf(task: Task, timestamp: string): Json {
  const artifacts = task.artifacts.length ? { artifacts: task.artifacts } : {};
  return { id: task.id, contextId: task.contextId, status: { state: task.state, timestamp }, ...artifacts, history: task.history };
}

/** A version-4-shaped UUID of 32 seeded hex digits. */
const uuidOf = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;

/** The reply streamed as an artifact in two chunks: the first makes it, the second is appended and the last. */
function replyChunks(task: Task, artifactId: string, reply: string): TaskEvent[] {
  const half = Math.ceil(reply.length / 2);
  const chunk = (text: string, more: Json) => ({
    artifactUpdate: {
      taskId: task.id,
      contextId: task.contextId,
      artifact: { artifactId, name: 'reply', parts: [{ text, mediaType: 'text/plain' }] },
      ...more,
    },
  });
  return [chunk(reply.slice(0, half), {}), chunk(reply.slice(half), { append: true, lastChunk: true })];
}

/**
 * The simulator's tasks: a message makes a task that answers with an artifact in two chunks; one that asks for
 * something slow works until cancelled or `slowMs` passes. Ids and timestamps come from the seed.
 */
export class Tasks {
  private readonly tasks = new Map<string, Task>();

  constructor(
    private readonly ids: SeededIds,
    private readonly slowMs: number,
  ) {}

  private stamp = () => new Date(this.ids.now() * 1000).toISOString();
  private uuid = () => uuidOf(this.ids.hex(32));

  /** The task as GetTask answers it. */
  view(task: Task): Json {
    return viewOf(task, this.stamp());
  }

  get(id: string): Task | undefined {
    return this.tasks.get(id);
  }

  isFinal(task: Task): boolean {
    return FINAL.has(task.state);
  }

  private emit(task: Task, event: TaskEvent): void {
    for (const listen of task.listeners) listen(event);
  }

  private status(task: Task, state: string): void {
    task.state = state;
    this.emit(task, { statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state, timestamp: this.stamp() } } });
  }

  /** Starts a task for a message; `listen` hears every event from the task itself on. */
  start(message: Json, listen?: (e: TaskEvent) => void): Task {
    const id = this.uuid();
    const contextId = typeof message.contextId === 'string' ? message.contextId : this.uuid();
    const task: Task = {
      id,
      contextId,
      state: 'TASK_STATE_SUBMITTED',
      history: [{ ...message, taskId: id, contextId }],
      artifacts: [],
      listeners: new Set(),
    };
    this.tasks.set(id, task);
    if (listen) task.listeners.add(listen);
    this.emit(task, { task: this.view(task) });
    this.status(task, 'TASK_STATE_WORKING');
    const asked = textOf(message);
    if (/\bslow(ly)?\b/i.test(asked)) task.timer = setTimeout(() => this.finish(task, asked), this.slowMs);
    else this.finish(task, asked);
    return task;
  }

  private finish(task: Task, asked: string): void {
    if (this.isFinal(task)) return;
    const reply = `You said: ${asked}`;
    const artifactId = this.uuid();
    for (const event of replyChunks(task, artifactId, reply)) this.emit(task, event);
    task.artifacts = [{ artifactId, name: 'reply', parts: [{ text: reply, mediaType: 'text/plain' }] }];
    this.status(task, 'TASK_STATE_COMPLETED');
  }

  /** Cancels a task still under way; false for one already final. */
  cancel(task: Task): boolean {
    if (this.isFinal(task)) return false;
    clearTimeout(task.timer);
    this.status(task, 'TASK_STATE_CANCELED');
    return true;
  }

  close(): void {
    for (const task of this.tasks.values()) clearTimeout(task.timer);
  }
}
