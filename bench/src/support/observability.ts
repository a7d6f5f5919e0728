import { repoRoot, startNode, stop, waitForOk } from './processes.js';

/** Metrics and tracing on for the processes of a bench (issue 36, item 6): what they report goes somewhere real. */
export interface Observability {
  /** The environment of a process measured with both on: its metrics on `metricsPort` (scraped), its spans to the receiver. */
  envFor(metricsPort: number): Record<string, string>;
  /** Scrapes answered and failed, and spans received, so far. */
  status(): Promise<{ scrapes: number; failedScrapes: number; spans: number }>;
  close(): Promise<void>;
}

/**
 * Starts the OTLP receiver stand-in as a process of its own and scrapes every metrics port handed out by `envFor`
 * every `scrapeEveryMs` (1 s: fifteen times Prometheus's default interval, so the figure errs on the high side);
 * `sampleRatio`: `OTEL_TRACES_SAMPLER_ARG` (unset: every trace); `metrics: false` leaves metrics off (tracing alone).
 */
export async function startObservability(opts: { scrapeEveryMs?: number; sampleRatio?: number; metrics?: boolean } = {}): Promise<Observability> {
  const scrapeEveryMs = opts.scrapeEveryMs ?? 1000;
  const port = 4300 + Math.floor(Math.random() * 200) * 2;
  const receiver = startNode(`${repoRoot}bench/dist/support/otlp-receiver.server.js`, { PORT: String(port) }, 'otlp-receiver');
  await waitForOk(`http://127.0.0.1:${port}/health`);
  const ports = new Set<number>();
  let scrapes = 0;
  let failedScrapes = 0;
  const timer = setInterval(() => {
    for (const p of ports) {
      fetch(`http://127.0.0.1:${p}/metrics`)
        .then(async (r) => {
          await r.text();
          if (r.ok) scrapes++;
          else failedScrapes++;
        })
        .catch(() => failedScrapes++);
    }
  }, scrapeEveryMs);
  return {
    envFor(metricsPort) {
      if (opts.metrics === false) return { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, ...(opts.sampleRatio !== undefined ? { OTEL_TRACES_SAMPLER_ARG: String(opts.sampleRatio) } : {}) };
      ports.add(metricsPort);
      return {
        METRICS_PORT: String(metricsPort),
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        ...(opts.sampleRatio !== undefined ? { OTEL_TRACES_SAMPLER_ARG: String(opts.sampleRatio) } : {}),
      };
    },
    async status() {
      const spans = Number(await (await fetch(`http://127.0.0.1:${port + 1}/`)).text());
      return { scrapes, failedScrapes, spans };
    },
    async close() {
      clearInterval(timer);
      await stop(receiver);
    },
  };
}
