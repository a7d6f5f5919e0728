/**
 * `npm run cmd -- <name>` (scripts/cmd.mjs imports `dist/jobs/cli.js`): the sweeps by hand, as the scheduler
 * runs them (advisory lock, one-line summary). Exits 0 when done (or another instance was running it),
 * 1 failed, 78 bad configuration.
 */
import { ConfigError, createLogger, loadConfig, openDatabase, runJobCommand } from '@invest/platform';
import { alertsConfigFrom, alertsEnvSchema } from '../config/alerts.config.js';
import { AlertsEvaluator } from '../evaluation/alerts-evaluator.js';
import { migrations } from '../migrations/index.js';
import { DAILY_RESET_JOB, dailyResetJob, PRICE_ALERTS_JOB, PRICE_CHANGE_ALERTS_JOB, priceAlertsJob, priceChangeAlertsJob } from './alerts-jobs.js';

export type Command = (args: string[]) => Promise<number>;

async function runCommand(name: string, env: Record<string, string | undefined>, write: (line: string) => void): Promise<number> {
  let config;
  try {
    config = alertsConfigFrom(loadConfig(alertsEnvSchema, env));
  } catch (err) {
    if (err instanceof ConfigError) {
      write(`${name}: ${err.message}`);
      return 78;
    }
    throw err;
  }
  const logger = createLogger('alerts', config.logLevel);
  const db = await openDatabase({ url: config.databaseUrl, migrations, logger });
  try {
    const evaluator = new AlertsEvaluator({ logger, clock: () => new Date(), maxRateAgeMs: config.maxRateAgeMs, marketTz: config.marketTz });
    const job =
      name === PRICE_ALERTS_JOB ? priceAlertsJob(db, evaluator) : name === DAILY_RESET_JOB ? dailyResetJob(db, () => new Date(), config.marketTz) : priceChangeAlertsJob(db, evaluator);
    return await runJobCommand(db, job, [], logger, write);
  } finally {
    await db.close();
  }
}

/** The alerts commands, reading configuration from `env` when they run. */
export function createCommands(env: Record<string, string | undefined> = process.env, write = (line: string) => process.stdout.write(`${line}\n`)): Record<string, Command> {
  return Object.fromEntries([PRICE_ALERTS_JOB, PRICE_CHANGE_ALERTS_JOB, DAILY_RESET_JOB].map((name) => [name, () => runCommand(name, env, write)]));
}

export const commands: Record<string, Command> = createCommands();
