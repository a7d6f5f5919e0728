import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createHealthController } from '@invest/platform';
import { BillingHandler } from './billing.handler.js';
import type { BillingService } from './billing.service.js';
import { BILLING_SERVICE } from './billing.tokens.js';

const RESOURCES = Symbol('BILLING_RESOURCES');

/** Ties the service's background work to Nest's lifecycle: app.close() and SIGINT/SIGTERM stop it too. */
class ResourcesShutdown implements OnApplicationShutdown {
  constructor(private readonly stop: () => Promise<void>) {}
  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }
}

/** The NATS handlers of the billing service, wired to services built (and owned) by createBillingApp. */
@Module({})
export class BillingModule {
  static register(s: { billing: BillingService; stopResources(): Promise<void> }): DynamicModule {
    return {
      module: BillingModule,
      controllers: [createHealthController('billing'), BillingHandler],
      providers: [
        { provide: BILLING_SERVICE, useValue: s.billing },
        { provide: RESOURCES, useValue: new ResourcesShutdown(s.stopResources) },
      ],
    };
  }
}
