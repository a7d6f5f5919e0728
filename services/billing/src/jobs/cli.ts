/**
 * `npm run cmd -- <name> [options]` (scripts/cmd.mjs imports `dist/jobs/cli.js`): billing's jobs by hand, as
 * the scheduler runs them (advisory lock, one-line summary), plus `billing:rebuild-read-models`. Exits 0 when
 * done (or another instance was running it), 1 failed, 78 bad configuration.
 */
import { ConfigError, createLogger, loadConfig, openDatabase, runJobCommand } from '@invest/platform';
import { BillingService } from '../billing.service.js';
import { billingConfigFrom, billingEnvSchema } from '../config/billing.config.js';
import { migrations } from '../migrations/index.js';
import { planCatalog } from '../plans/plan-catalog.js';
import { CloudPaymentsClient } from '../provider/cloudpayments.client.js';
import { rebuildReadModels } from '../subscriptions/rebuild-read-models.js';
import { CLEAR_OUTDATED_JOB, clearOutdatedSubscriptionsJob, RECONCILE_JOB, reconcileSubscriptionsJob } from './billing-jobs.js';

export type Command = (args: string[]) => Promise<number>;
const REBUILD = 'billing:rebuild-read-models';

async function runCommand(name: string, env: Record<string, string | undefined>, write: (line: string) => void): Promise<number> {
  let config;
  try {
    config = billingConfigFrom(loadConfig(billingEnvSchema, env));
  } catch (err) {
    if (err instanceof ConfigError) {
      write(`${name}: ${err.message}`);
      return 78;
    }
    throw err;
  }
  const logger = createLogger('billing', config.logLevel);
  const db = await openDatabase({ url: config.databaseUrl, migrations, logger });
  try {
    if (name === REBUILD) {
      const started = performance.now();
      const n = await rebuildReadModels(db);
      write(`${name}: projected ${n} events, took ${Math.round(performance.now() - started)} ms`);
      return 0;
    }
    const plans = planCatalog(config.prices);
    const cp = config.cloudPayments;
    const billing = new BillingService(db, new CloudPaymentsClient({ ...cp, logger }), { plans, apiSecret: cp.apiSecret, acceptTestPayments: cp.acceptTestPayments, clock: () => new Date(), logger });
    const deps = { db, billing, logger, clock: () => new Date(), marketTz: config.marketTz };
    const job = name === CLEAR_OUTDATED_JOB ? clearOutdatedSubscriptionsJob(deps) : reconcileSubscriptionsJob(deps);
    return await runJobCommand(db, job, [], logger, write);
  } finally {
    await db.close();
  }
}

/** Billing's commands, reading configuration from `env` when they run. */
export function createCommands(env: Record<string, string | undefined> = process.env, write = (line: string) => process.stdout.write(`${line}\n`)): Record<string, Command> {
  return Object.fromEntries([CLEAR_OUTDATED_JOB, RECONCILE_JOB, REBUILD].map((name) => [name, () => runCommand(name, env, write)]));
}

export const commands: Record<string, Command> = createCommands();
