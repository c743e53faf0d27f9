/**
 * A small priority queue of requests with a concurrency limit (pure: no DOM). A dashboard's
 * widgets ask for their data through it in reading order, so on a slow or busy API the widgets at
 * the top of the page are answered first instead of every request sharing the server at once; a
 * widget scrolled into view is promoted ahead of those still off screen.
 */
/**
 * Widget-data requests a dashboard page runs at once: in reading order, those in view first, so the
 * first charts are answered first rather than 20 widgets sharing one busy API at once.
 */
export const WIDGET_CONCURRENCY = 4;

interface Task {
  key: string;
  rank: number;
  visible: boolean;
  seq: number;
  start: () => void;
}

export class RequestQueue {
  private waiting: Task[] = [];
  private running = 0;
  private seq = 0;

  constructor(readonly concurrency: number) {}

  /**
   * Runs `fn` when a slot is free: visible tasks first, then by `rank` (reading order), then in
   * the order they were added. The answer is `fn`'s.
   */
  run<T>(key: string, rank: number, fn: () => Promise<T>, visible = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const task: Task = {
        key,
        rank,
        visible,
        seq: this.seq++,
        start: () => {
          this.running++;
          fn()
            .then(resolve, reject)
            .finally(() => {
              this.running--;
              this.next();
            });
        },
      };
      this.waiting.push(task);
      this.next();
    });
  }

  /** Moves a waiting task ahead of the off-screen ones (its widget came into view). */
  promote(key: string): void {
    for (const t of this.waiting) if (t.key === key) t.visible = true;
  }

  /** Drops waiting tasks of `key` that have not started (a widget left the page); they never settle. */
  cancel(key: string): void {
    this.waiting = this.waiting.filter((t) => t.key !== key);
  }

  /** How many run now and how many wait (for tests). */
  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.length) {
      this.waiting.sort((a, b) => Number(b.visible) - Number(a.visible) || a.rank - b.rank || a.seq - b.seq);
      this.waiting.shift()!.start();
    }
  }
}
