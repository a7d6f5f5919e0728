/**
 * The stand-ins for outside providers that `npm start` runs in development when their URLs are not set
 * (the demo market, and later a fake payment provider or an offline chat model). A service exports one as
 * `demoProviders` from `src/testing/demo-providers.ts`; `scripts/demo-providers.mjs` finds every such
 * module, starts those with an unset variable in one process, and `scripts/start.mjs` passes the variables
 * they return to every service.
 */
export interface DemoProviders {
  /** What is served, said once at start, e.g. "MOEX ISS and CoinGecko from real captures, prices drifting". */
  description: string;
  /** The variables this module can fill. It is started only when at least one of them is unset. */
  variables: readonly string[];
  /** Starts the stand-ins; `env` holds a value for each of `variables` it fills (only the unset ones are used; one it leaves out keeps its default). */
  start(): Promise<RunningDemoProviders>;
}

/** Stand-ins that are up and answering. */
export interface RunningDemoProviders {
  env: Record<string, string>;
  /** How to use them, added to the ready banner, e.g. a URL that simulates a payment. */
  hint?: string;
  close(): Promise<void>;
}
