import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { Subjects } from '@invest/contracts';

/** What a service's health ping answers; `ok: false` with `problems` makes the gateway's `/ready` fail, naming them. */
export interface HealthPingReply {
  service: string;
  ok: boolean;
  problems: string[];
  at: string;
}

/**
 * A controller answering `<service>.health.ping`, used by the gateway's `/ready`. Each of `problems` names what
 * the service finds wrong with itself (billing: charges with no fiscal receipt; `ServiceResources.problems`: a
 * stuck consumer); an error one throws is no answer (the gateway reports `error`).
 */
export function createHealthController(service: string, ...problems: (() => Promise<string[]>)[]) {
  @Controller()
  class HealthController {
    @MessagePattern(Subjects.healthPing(service))
    async ping(): Promise<HealthPingReply> {
      const found = (await Promise.all(problems.map((p) => p()))).flat();
      return { service, ok: found.length === 0, problems: found, at: new Date().toISOString() };
    }
  }
  return HealthController;
}
