import 'reflect-metadata';
import { Controller, Get } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { ServiceResources, serviceModule } from './service-resources.js';

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

  it('builds a module of ready-made controllers whose shutdown calls onShutdown once, on close', async () => {
    const seen: string[] = [];
    const createGreeter = (name: string) => {
      @Controller()
      class Greeter {
        @Get()
        hello() {
          return name;
        }
      }
      return Greeter;
    };
    const Greeter = createGreeter('ann');
    const app = await NestFactory.createApplicationContext(
      serviceModule([Greeter], async () => void seen.push('stopped')),
      { logger: false },
    );
    expect(app.get(Greeter).hello()).toBe('ann');
    expect(seen).toEqual([]);
    await app.close();
    expect(seen).toEqual(['stopped']);
  });
});
