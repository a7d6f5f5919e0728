import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as the OTLP/HTTP JSON exporter sends it (ids hex), with its resource's `service.name`. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Absent (or empty) on a trace's root. */
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  status?: { code?: number; message?: string };
  attributes?: { key: string; value: Record<string, unknown> }[];
  links?: { traceId: string; spanId: string }[];
}

export interface OtlpReceiver {
  /** The endpoint to give `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter posts to `<url>/v1/traces`). */
  url: string;
  spans: ReceivedSpan[];
  /** Spans received (also those not kept, with `keep: false`). */
  count: number;
  /** Every request received, whatever its path or body. */
  requests: number;
  close(): Promise<void>;
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: Omit<ReceivedSpan, 'service'>[] }[];
  }[];
}

/**
 * A local stand-in for an OpenTelemetry collector's OTLP/HTTP receiver: accepts `POST /v1/traces` in the JSON
 * encoding (what `@opentelemetry/exporter-trace-otlp-http` sends) and keeps the spans, for tests and benches.
 */
export async function startOtlpReceiver(opts: { port?: number; keep?: boolean } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const receiver = { url: '', spans, count: 0, requests: 0, close: () => Promise.resolve() } as OtlpReceiver;
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200).end('ok');
      return;
    }
    receiver.requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans ?? []) {
          receiver.count += ss.spans?.length ?? 0;
          if (opts.keep !== false) for (const s of ss.spans ?? []) spans.push({ ...s, service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}
