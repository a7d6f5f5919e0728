import { describe, expect, it } from 'vitest';
import { signCloudPayments, verifyCloudPaymentsSignature } from './cloudpayments-signature.js';
import { signedNotificationParams } from './notification-body.js';

const secret = 'test_api_secret';
const form = 'application/x-www-form-urlencoded';
// A Pay whose `Data` (set by the payer in the browser) carries parameter syntax, escaped as the provider sends it.
const captured = Buffer.from(
  'TransactionId=2718281828&Amount=0.01&Currency=RUB&AccountId=42&Status=Completed' +
    '&Data=%7b%22note%22%3a%22%26TransactionId%3dT%2b5%26Amount%3d999999999999.99%26%22%7d&TestMode=1',
);
const xContentHmac = signCloudPayments(captured, secret)['X-Content-HMAC'];

/** The attack: escape the real `=`s as `%3d` and unescape `Data`; the decoded text is unchanged. */
const forged = Buffer.from(
  'TransactionId%3d2718281828&Amount%3d0.01&Currency=RUB&AccountId=42&Status=Completed' +
    '&Data={"note":"&TransactionId=T%2b5&Amount=999999999999.99&"}&TestMode=1',
);

describe('signedNotificationParams', () => {
  it('reads a body signed over its raw bytes as the raw bytes say, Data and all', () => {
    const covers = verifyCloudPaymentsSignature(captured, { contentHmac: signCloudPayments(captured, secret)['Content-HMAC'] }, secret);
    expect(covers).toBe('raw');
    expect(signedNotificationParams(captured, form, covers!)).toMatchObject({ TransactionId: '2718281828', Amount: '0.01', Data: '{"note":"&TransactionId=T+5&Amount=999999999999.99&"}' });
  });

  it('refuses a body whose fields were moved between escaped and plain under a signature of the decoded text', () => {
    const covers = verifyCloudPaymentsSignature(forged, { xContentHmac }, secret);
    // The signature still holds: it covers only the decoded text, which the forgery kept.
    expect(covers).toBe('decoded');
    expect(signedNotificationParams(forged, form, covers!)).toBe('ambiguous');
  });

  it('refuses the decoded text itself sent raw when it reads more than one way (a field set from inside Data)', () => {
    // The genuine notification has SubscriptionId empty; the payer's Data holds `&SubscriptionId=sc_x&`.
    const genuine = Buffer.from('TransactionId=7&Amount=299.00&SubscriptionId=&Data=%7b%22n%22%3a%22%26SubscriptionId%3dsc_x%26%22%7d&TestMode=1');
    const decodedText = Buffer.from('TransactionId=7&Amount=299.00&SubscriptionId=&Data={"n":"&SubscriptionId=sc_x&"}&TestMode=1');
    const { 'X-Content-HMAC': signature } = signCloudPayments(genuine, secret);
    const covers = verifyCloudPaymentsSignature(decodedText, { xContentHmac: signature }, secret);
    // Its bytes are the signed text, so the signature matches them as raw bytes too.
    expect(covers).toBe('raw');
    expect(signedNotificationParams(decodedText, form, covers!)).toBe('ambiguous');
    // The genuine notification, signed over its raw bytes, reads as it says.
    expect(signedNotificationParams(genuine, form, 'raw')).toMatchObject({ TransactionId: '7', Data: '{"n":"&SubscriptionId=sc_x&"}' });
  });

  it('takes a decoded-only signature when both readings agree', () => {
    const plain = Buffer.from('TransactionId=7&Amount=299.00&Name=%d0%90%d0%bd%d0%bd%d0%b0+S&Data=%7b%22plan%22%3a%22basic-m%22%7d');
    const covers = verifyCloudPaymentsSignature(plain, { xContentHmac: signCloudPayments(plain, secret)['X-Content-HMAC'] }, secret);
    expect(covers).toBe('decoded');
    expect(signedNotificationParams(plain, form, covers!)).toEqual({ TransactionId: '7', Amount: '299.00', Name: 'Анна S', Data: '{"plan":"basic-m"}' });
  });
});

describe('notification format', () => {
  // A JSON Pay of 0.01 whose Data the payer filled with parameter syntax (not escaped: it is JSON).
  const json = Buffer.from(
    JSON.stringify({
      TransactionId: 2718281828,
      Amount: 0.01,
      Currency: 'RUB',
      AccountId: '42',
      Status: 'Completed',
      Data: { note: '&TransactionId=31415&Amount=2990.00&Currency=RUB&AccountId=666&Status=Completed&' },
    }),
  );

  it('reads a signed JSON body as JSON whatever the Content-Type (outside the signature) says', () => {
    const covers = verifyCloudPaymentsSignature(json, { contentHmac: signCloudPayments(json, secret)['Content-HMAC'] }, secret);
    expect(covers).toBe('raw');
    const expected = { TransactionId: '2718281828', Amount: '0.01', AccountId: '42', Data: '{"note":"&TransactionId=31415&Amount=2990.00&Currency=RUB&AccountId=666&Status=Completed&"}' };
    for (const contentType of [form, 'text/plain', null]) expect(signedNotificationParams(json, contentType, covers!)).toMatchObject(expected);
  });

  it('still reads a form as a form, and refuses a form sent as JSON', () => {
    const plain = Buffer.from('TransactionId=7&Amount=299.00');
    expect(signedNotificationParams(plain, form, 'raw')).toEqual({ TransactionId: '7', Amount: '299.00' });
    expect(signedNotificationParams(plain, null, 'raw')).toEqual({ TransactionId: '7', Amount: '299.00' });
    expect(signedNotificationParams(plain, 'application/json', 'raw')).toBeUndefined();
  });
});
