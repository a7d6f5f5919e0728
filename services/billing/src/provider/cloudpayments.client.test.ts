import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudPaymentsClient } from './cloudpayments.client.js';

// The provider's answer as bytes: a TransactionId above 2^53, which JSON.stringify of a number cannot write.
const ANSWER = '{"Success":true,"Message":null,"Model":{"TransactionId":9007199964992993,"Amount":299.00,"Currency":"RUB","InvoiceId":"inv-1","AccountId":"42","Status":"Completed","TestMode":false}}';

describe('CloudPaymentsClient.findPayment', () => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(ANSWER);
  });
  let client: CloudPaymentsClient;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = new CloudPaymentsClient({ baseUrl: `http://127.0.0.1:${port}`, publicId: 'pk', apiSecret: 'secret', timeoutMs: 2000, retries: 0, backoffMs: 10 });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('keeps the TransactionId as sent (the webhook of the same payment reads it so; a double would make it …992)', async () => {
    expect(await client.findPayment('inv-1')).toMatchObject({ transactionId: '9007199964992993', amount: '299.00', currency: 'RUB', status: 'Completed' });
  });
});
