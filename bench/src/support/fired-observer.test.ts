import { headers } from '@nats-io/nats-core';
import { connectNats } from '@invest/platform/messaging/nats-connection';
import { testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeRaw } from './fired-observer.js';

describe('subscribeRaw (the benchmark observer’s NATS subscriber)', () => {
  const subject = `${uniqueName('observer')}.events.>`;
  let nc: Awaited<ReturnType<typeof connectNats>>;

  beforeAll(async () => {
    nc = await connectNats(testNatsUrl(), 'observer-test');
  });
  afterAll(async () => {
    await nc?.close();
  });

  it('counts each message once, with or without headers, whatever its payload holds or how it is split', async () => {
    const url = new URL(testNatsUrl());
    let count = 0;
    const sub = await subscribeRaw(url.hostname, Number(url.port || 4222), subject, () => count++);
    const base = subject.slice(0, -1);
    // Payloads that look like protocol lines, an empty one, and large ones that arrive over several reads.
    const payloads = ['', 'MSG a 1 5\r\nhello\r\n', '\r\nHMSG x 1 2 3\r\n\r\n', 'PING\r\n', 'x'.repeat(300_000), 'Ж'.repeat(70_000)];
    let sent = 0;
    for (let i = 0; i < 40; i++) {
      for (const p of payloads) {
        const h = headers();
        h.set('Nats-Msg-Id', `id-${i}-${sent}`);
        nc.publish(`${base}a${i}`, p, i % 2 === 0 ? { headers: h } : undefined);
        sent++;
      }
    }
    // Another subject is not counted.
    nc.publish(`${uniqueName('other')}.events.x`, 'not for the observer');
    await nc.flush();
    const until = Date.now() + 10_000;
    while (count < sent && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    // Nothing beyond what was sent arrives later.
    await new Promise((r) => setTimeout(r, 200));
    sub.close();
    expect(count).toBe(sent);
  });
});
