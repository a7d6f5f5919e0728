import { describe, expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { ShutdownStack } from './shutdown.js';

describe('ShutdownStack', () => {
  it('stops in reverse order, once, and keeps going past a failing step', async () => {
    const order: string[] = [];
    const stack = new ShutdownStack(createLogger('test', 'silent'));
    stack.push(() => order.push('db'));
    stack.push(() => {
      order.push('bus');
      throw new Error('already closed');
    });
    stack.push(async () => order.push('relay'));
    await Promise.all([stack.stop(), stack.stop()]);
    await stack.stop();
    expect(order).toEqual(['relay', 'bus', 'db']);
  });
});
