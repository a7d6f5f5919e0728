/**
 * The OTLP/HTTP receiver stand-in as a process of its own (`PORT`), so that taking the spans in costs the
 * measured processes and the load generator nothing, as a collector elsewhere would. `GET /health` answers 200;
 * any request to `PORT + 1`, the number of spans received.
 */
import { createServer } from 'node:http';
import { startOtlpReceiver } from '@invest/platform/testing/otlp-receiver';

const receiver = await startOtlpReceiver({ port: Number(process.env.PORT), keep: false });
createServer((_req, res) => res.end(String(receiver.count))).listen(Number(process.env.PORT) + 1, '127.0.0.1');
process.on('SIGTERM', () => void receiver.close().then(() => process.exit(0)));
