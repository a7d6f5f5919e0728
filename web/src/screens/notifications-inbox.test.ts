/**
 * the inbox's unread counter and list when stream events and the first inbox read interleave.
 * No DOM library is installed, so the screen's component (Notifications, reached through NotificationsScreen's
 * element tree) runs under a minimal hook runtime (useState/useRef/useCallback/useEffect, updates applied in order,
 * effects after each render) with the API mocked; what it renders is read from the returned element tree.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

type Slot = { current?: unknown; deps?: unknown[]; cleanup?: () => void };
const h = { slots: [] as unknown[], i: 0, effects: [] as (() => void)[] };

vi.mock('react', async (importOriginal) => {
  const actual = await importOriginal<typeof import('react')>();
  return {
    ...actual,
    lazy: () => () => null,
    useState: (init: unknown) => {
      const i = h.i++;
      const slots = h.slots;
      if (!(i in slots)) slots[i] = typeof init === 'function' ? (init as () => unknown)() : init;
      return [slots[i], (v: unknown) => void (slots[i] = typeof v === 'function' ? (v as (p: unknown) => unknown)(slots[i]) : v)];
    },
    useRef: (init: unknown) => {
      const i = h.i++;
      if (!(i in h.slots)) h.slots[i] = { current: init };
      return h.slots[i];
    },
    useCallback: (fn: unknown) => {
      const i = h.i++;
      if (!(i in h.slots)) h.slots[i] = fn;
      return h.slots[i];
    },
    useEffect: (fn: () => void | (() => void), deps?: unknown[]) => {
      const i = h.i++;
      const prev = h.slots[i] as Slot | undefined;
      if (prev && deps && prev.deps && deps.every((d, k) => d === prev.deps![k])) return;
      const slot: Slot = { deps };
      h.slots[i] = slot;
      h.effects.push(() => {
        prev?.cleanup?.();
        const c = fn();
        if (typeof c === 'function') slot.cleanup = c;
      });
    },
  };
});
vi.mock('../i18n', () => ({ useLocale: () => 'en', getLocale: () => 'en', setLocale: () => undefined }));
vi.mock('../components/require-session', () => ({ RequireSession: ({ children }: { children: unknown }) => children }));
vi.mock('../components/toast', () => ({ showToast: () => undefined }));
// The screen links to the watchlists screen; the router reads `location` when loaded, which node has not.
vi.mock('../components/link', () => ({ Link: ({ children }: { children: unknown }) => children }));

let inboxRead: { resolve: (v: unknown) => void; reject: (e: unknown) => void };
vi.mock('../api/client', () => ({
  api: {
    get: (path: string) =>
      path === '/api/notification-events'
        ? new Promise((resolve, reject) => (inboxRead = { resolve, reject }))
        : Promise.resolve({ data: [], meta: {} }),
    post: () => Promise.resolve({ data: {} }),
    delete: () => Promise.resolve(undefined),
  },
}));

let screen: typeof import('./notifications.screen');
let inbox: typeof import('../components/inbox-events');
beforeAll(async () => {
  screen = await import('./notifications.screen');
  inbox = await import('../components/inbox-events');
});

type El = { type: unknown; key?: string | null; props?: Record<string, unknown> };
function find(node: unknown, testId: string): El | undefined {
  if (Array.isArray(node)) {
    for (const n of node) {
      const f = find(n, testId);
      if (f) return f;
    }
    return undefined;
  }
  if (!node || typeof node !== 'object') return undefined;
  const el = node as El;
  if (el.props?.['data-testid'] === testId) return el;
  return find(el.props?.children, testId);
}

let component: () => unknown;
let tree: unknown;
function render(): void {
  for (let round = 0; round < 5; round++) {
    h.i = 0;
    tree = component();
    const effects = h.effects.splice(0);
    if (effects.length === 0) return;
    for (const e of effects) e();
  }
}
const settle = async () => {
  for (let k = 0; k < 5; k++) await Promise.resolve();
  render();
};
const unread = () => (find(tree, 'inbox-unread')?.props?.children as number) ?? NaN;
const listed = () => ((find(tree, 'inbox-list')?.props?.children as unknown[])[0] as El[]).map((li) => Number(li.key));
const firing = (id: number) => ({ id, notification_id: 1, title: `t${id}`, body: 'b', fired_at: new Date(1_800_000_000_000 + id * 1000).toISOString(), read_at: null, assets: [] });

function mount(): void {
  // Unmount the previous test's component: run its effects' clean-ups (the onFiring subscription).
  for (const slot of h.slots) (slot as Slot | undefined)?.cleanup?.();
  h.slots = [];
  h.effects = [];
  component = (screen.default() as { props: { children: { type: () => unknown } } }).props.children.type;
  render();
}

describe('inbox counter while the first read is under way', () => {
  it('two firings streamed during the read stay newest first once the read lands', async () => {
    mount();
    inbox.publishFiring(firing(11) as never);
    render();
    inbox.publishFiring(firing(12) as never);
    render();
    expect(listed()).toEqual([12, 11]);
    inboxRead.resolve({ data: [firing(10)], meta: { unread_count: 1 } });
    await settle();
    expect(unread()).toBe(3);
    expect(listed()).toEqual([12, 11, 10]);
  });

  it('a firing the read lists and the stream also delivers counts once', async () => {
    mount();
    inbox.publishFiring(firing(11) as never);
    render();
    inboxRead.resolve({ data: [firing(11), firing(10)], meta: { unread_count: 2 } });
    await settle();
    inbox.publishFiring(firing(11) as never);
    render();
    expect(unread()).toBe(2);
    expect(listed()).toEqual([11, 10]);
  });
});
