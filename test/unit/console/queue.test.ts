import { RequestQueue } from '../../../console/src/request-queue';

/** A task the test settles by hand; records when it started. */
function controlled(started: string[], name: string) {
  let settle!: () => void;
  const done = new Promise<void>((r) => {
    settle = r;
  });
  return {
    fn: async () => {
      started.push(name);
      await done;
      return name;
    },
    settle: () => settle(),
  };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('the widget request queue', () => {
  it('runs at most `concurrency` at once, in reading order, and answers each with its own result', async () => {
    const q = new RequestQueue(2);
    const started: string[] = [];
    const tasks = ['w3', 'w1', 'w4', 'w2'].map((k) => ({ k, ...controlled(started, k) }));
    const answers = tasks.map((t) => q.run(t.k, Number(t.k.slice(1)), t.fn));
    await tick();
    // w3 and w1 were added first and started at once (free slots); the rest wait.
    expect(started).toEqual(['w3', 'w1']);
    expect(q.size).toEqual({ running: 2, waiting: 2 });
    tasks[1]!.settle(); // w1 ends: the lowest rank waiting (w2) goes next, not w4
    await tick();
    expect(started).toEqual(['w3', 'w1', 'w2']);
    for (const t of tasks) t.settle();
    expect(await Promise.all(answers)).toEqual(['w3', 'w1', 'w4', 'w2']);
    expect(q.size).toEqual({ running: 0, waiting: 0 });
  });

  it('starts a widget that came into view before those still off screen', async () => {
    const q = new RequestQueue(1);
    const started: string[] = [];
    const first = controlled(started, 'w1');
    void q.run('w1', 0, first.fn);
    const later = ['w2', 'w3', 'w9'].map((k, i) => ({ k, ...controlled(started, k), rank: i + 1 }));
    const answers = later.map((t) => q.run(t.k, t.rank, t.fn));
    q.promote('w9');
    first.settle();
    await tick();
    expect(started).toEqual(['w1', 'w9']);
    for (const t of later) t.settle();
    await Promise.all(answers);
    expect(started).toEqual(['w1', 'w9', 'w2', 'w3']);
  });

  it('a task added as visible goes first; a cancelled one never starts; a failure frees its slot', async () => {
    const q = new RequestQueue(1);
    const started: string[] = [];
    const block = controlled(started, 'block');
    const blocked = q.run('block', 0, async () => {
      await block.fn();
      throw new Error('refused');
    });
    void q.run('gone', 1, async () => started.push('gone'));
    const seen = q.run('seen', 5, async () => started.push('seen'), true);
    q.cancel('gone');
    block.settle();
    await expect(blocked).rejects.toThrow('refused');
    await seen;
    await tick();
    expect(started).toEqual(['block', 'seen']);
    expect(q.size).toEqual({ running: 0, waiting: 0 });
  });
});
