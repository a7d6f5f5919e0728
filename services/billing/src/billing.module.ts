import { type DynamicModule, Module } from '@nestjs/common';
import { createHealthController, resourcesShutdownProvider } from '@invest/platform';
import { BillingHandler } from './billing.handler.js';
import type { BillingService } from './billing.service.js';
import { BILLING_SERVICE } from './billing.tokens.js';

/** The NATS handlers of the billing service, wired to services built (and owned) by createBillingApp. */
@Module({})
export class BillingModule {
  static register(s: { billing: BillingService; stopResources(): Promise<void> }): DynamicModule {
    return {
      module: BillingModule,
      controllers: [createHealthController('billing'), BillingHandler],
      providers: [
        { provide: BILLING_SERVICE, useValue: s.billing },
        resourcesShutdownProvider(s.stopResources),
      ],
    };
  }
}
