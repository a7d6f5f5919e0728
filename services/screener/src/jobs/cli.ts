/**
 * `npm run cmd -- <name> [options]` (scripts/cmd.mjs imports `dist/jobs/cli.js`): runs one screener job by hand,
 * exactly as the scheduler does (advisory lock, one-line summary), against the database of the configuration
 * (`SCREENER_DATABASE_URL` or `DATABASE_URL`'s server), then exits: 0 done (or another instance was running
 * it), 1 failed, 78 bad configuration. Events it records are published by the running service's relay.
 */
import { ConfigError, createLogger, loadConfig, openDatabase, runJobCommand, serviceDatabaseUrl } from '@invest/platform';
import { screenerConfigSchema } from '../config.js';
import { migrations } from '../migrations/index.js';
import { ASSET_RATES_JOB } from './asset-rates.job.js';
import { createJobDeps } from './job-deps.js';
import { MAIN_COINS_JOB } from './main-coins-rates.job.js';
import { createScreenerJobs } from './screener-jobs.js';
import { SHARES_DIVIDENDS_JOB } from './shares-dividends.job.js';
import { SHARES_MARKET_STATS_JOB } from './shares-market-stats.job.js';

export type Command = (args: string[]) => Promise<number>;

export const JOB_COMMANDS = [SHARES_MARKET_STATS_JOB, ASSET_RATES_JOB, MAIN_COINS_JOB, SHARES_DIVIDENDS_JOB] as const;

export interface CommandOptions {
  /** Where the plain summary goes (default stdout). */
  write?: (line: string) => void;
}

async function runCommand(name: string, args: string[], env: Record<string, string | undefined>, opts: CommandOptions): Promise<number> {
  const write = opts.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  let config;
  try {
    config = loadConfig(screenerConfigSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      write(`${name}: ${err.message}`);
      return 78;
    }
    throw err;
  }
  const logger = createLogger('screener', config.LOG_LEVEL);
  const db = await openDatabase({ url: serviceDatabaseUrl('screener', env), migrations, logger });
  try {
    const deps = createJobDeps({ db, logger, marketTz: config.MARKET_TZ, providers: config });
    const job = createScreenerJobs(deps).byName[name]!;
    return await runJobCommand(db, job, args, logger, write);
  } finally {
    await db.close();
  }
}

/** The job commands, reading configuration from `env` when they run. */
export function createCommands(env: Record<string, string | undefined> = process.env, opts: CommandOptions = {}): Record<string, Command> {
  return Object.fromEntries(JOB_COMMANDS.map((name) => [name, (args: string[]) => runCommand(name, args, env, opts)]));
}

export const commands: Record<string, Command> = createCommands();
