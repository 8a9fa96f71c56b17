import { isTerminal, type TaskRecord } from "../tasks/task-record.js";
import type { TaskStore } from "../tasks/task-store.js";

// notifications/tasks (the tasks extension on subscriptions/listen): who listens for which task,
// and what each was last told. A change made here is told at once; one made on another instance
// is read from the store on the next beat.

/** How often the store is read for the watched tasks that have not ended. */
const BEAT_MS = 250;

/** One listen stream's tasks: what it was last told of each, until the task ends or it stops. */
interface Watcher {
  readonly owner: string;
  readonly told: Map<string, { key: string; at: string }>;
  readonly send: (task: TaskRecord) => void;
}

/** What a listener is told about: a new status, or new questions while it waits for input. */
const keyOf = (task: TaskRecord): string =>
  task.status === "input_required" ? `${task.status}:${Object.keys(task.inputRequests ?? {}).join(",")}` : task.status;

export class TaskWatchers {
  readonly #store: TaskStore;
  readonly #watchers = new Set<Watcher>();
  #timer: NodeJS.Timeout | undefined;

  constructor(store: TaskStore) {
    this.#store = store;
  }

  /** Whether anyone listens: changes are only read back for listeners. */
  get active(): boolean {
    return this.#watchers.size > 0;
  }

  /**
   * The tasks of `taskIds` that `owner` has (another caller's, an unknown or an expired one is left
   * out, as tasks/get would), as they stand now.
   */
  async find(owner: string, taskIds: readonly string[]): Promise<TaskRecord[]> {
    const store = this.#store;
    if (store.getMany) return store.getMany(taskIds, owner);
    const found: TaskRecord[] = [];
    for (const taskId of new Set(taskIds)) {
      const task = await store.get(taskId, owner);
      if (task !== undefined) found.push(task);
    }
    return found;
  }

  /** Tells `send` of each of `tasks` now and of every change after; the returned function stops it. */
  watch(owner: string, tasks: readonly TaskRecord[], send: (task: TaskRecord) => void): () => void {
    const watcher: Watcher = { owner, told: new Map(), send };
    for (const task of tasks) watcher.told.set(task.taskId, { key: "", at: "" });
    this.#watchers.add(watcher);
    for (const task of tasks) this.#offer(watcher, task);
    this.#beat();
    return () => {
      this.#watchers.delete(watcher);
    };
  }

  /** A task as this instance just wrote it. */
  changed(task: TaskRecord): void {
    for (const watcher of this.#watchers) if (watcher.owner === task.owner) this.#offer(watcher, task);
  }

  #offer(watcher: Watcher, task: TaskRecord): void {
    const told = watcher.told.get(task.taskId);
    // Not watched (or ended already), or older than what was told: a read that raced a write.
    if (told === undefined || task.lastUpdatedAt < told.at) return;
    const key = keyOf(task);
    if (key === told.key) return;
    if (isTerminal(task.status)) watcher.told.delete(task.taskId);
    else watcher.told.set(task.taskId, { key, at: task.lastUpdatedAt });
    watcher.send(task);
  }

  /** While a watched task has not ended: reads each from the store now and then (it may run elsewhere). */
  #beat(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(async () => {
      // Each owner's watched tasks in one read.
      const wanted = new Map<string, Set<string>>();
      for (const watcher of this.#watchers) {
        const ids = wanted.get(watcher.owner) ?? new Set<string>();
        for (const taskId of watcher.told.keys()) ids.add(taskId);
        wanted.set(watcher.owner, ids);
      }
      for (const [owner, ids] of wanted) {
        if (ids.size === 0) continue;
        try {
          const found = await this.find(owner, [...ids]);
          for (const task of found) {
            this.changed(task);
            ids.delete(task.taskId);
          }
          for (const taskId of ids) this.#forget(taskId, owner);
        } catch {
          // The store is down for now: the next beat reads again.
        }
      }
      this.#timer = undefined;
      if ([...this.#watchers].some((w) => w.told.size > 0)) this.#beat();
    }, BEAT_MS);
    this.#timer.unref();
  }

  /** The server is closing: no more reads. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#watchers.clear();
  }

  /** A task gone (expired): nothing more will be told of it. */
  #forget(taskId: string, owner: string): void {
    for (const watcher of this.#watchers) if (watcher.owner === owner) watcher.told.delete(taskId);
  }
}
