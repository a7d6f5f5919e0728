import { describe, expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { resourcesShutdownProvider, ServiceResources } from './service-resources.js';

describe('ServiceResources', () => {
  it('stops started workers in reverse order, once; a worker whose start failed is not stopped', async () => {
    const order: string[] = [];
    const res = new ServiceResources(createLogger('test', 'silent'));
    const worker = (name: string, fail = false) => ({
      start: async () => {
        if (fail) throw new Error(`${name} failed`);
      },
      stop: () => order.push(name),
    });
    res.push(() => order.push('db'));
    await expect(
      res.boot(async () => {
        await res.start(worker('relay'));
        await res.start(worker('consumer'));
        await res.start(worker('broken', true));
      }),
    ).rejects.toThrow('broken failed');
    await res.close();
    await res.stop();
    expect(order).toEqual(['consumer', 'relay', 'db']);
  });

  it('gives modules a provider whose shutdown hook calls stop', async () => {
    let stopped = 0;
    const provider = resourcesShutdownProvider(async () => void stopped++);
    await (provider as { useValue: { onApplicationShutdown(): Promise<void> } }).useValue.onApplicationShutdown();
    expect(stopped).toBe(1);
  });
});
