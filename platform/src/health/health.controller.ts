import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { Subjects } from '@invest/contracts';

/** A controller answering `<service>.health.ping`, used by the gateway's `/ready`. */
export function createHealthController(service: string) {
  @Controller()
  class HealthController {
    @MessagePattern(Subjects.healthPing(service))
    ping() {
      return { service, ok: true, at: new Date().toISOString() };
    }
  }
  return HealthController;
}
