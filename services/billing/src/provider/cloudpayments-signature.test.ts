import { describe, expect, it } from 'vitest';
import { signCloudPayments, verifyCloudPaymentsSignature } from './cloudpayments-signature.js';

// The reference's worked example (shared/reference/cloudpayments.md §2), byte for byte.
const body = Buffer.from(
  'TransactionId=2718281828&Amount=299.00&Currency=RUB&PaymentAmount=299.00&PaymentCurrency=RUB&OperationType=Payment&InvoiceId=inv-7731&AccountId=42&SubscriptionId=&Name=%d0%90%d0%bd%d0%bd%d0%b0+%d0%a1%d0%bc%d0%b8%d1%80%d0%bd%d0%be%d0%b2%d0%b0&Email=anna%40example.org&DateTime=2025-03-12+09%3a41%3a07&IpAddress=203.0.113.25&IpCountry=RU&IpCity=%d0%9d%d0%b8%d0%b6%d0%bd%d0%b8%d0%b9+%d0%9d%d0%be%d0%b2%d0%b3%d0%be%d1%80%d0%be%d0%b4&IpRegion=&IpDistrict=&IpLatitude=&IpLongitude=&CardId=&CardFirstSix=424242&CardLastFour=4242&CardType=Visa&CardExpDate=12%2f27&Issuer=CloudPayments&IssuerBankCountry=RU&Description=%d0%a2%d0%b0%d1%80%d0%b8%d1%84+basic-m&AuthCode=A1B2C3&Token=&TestMode=1&Status=Completed&GatewayName=Test&Data=%7b%22plan%22%3a%22basic-m%22%7d&TotalFee=0&Rrn=',
);
const secret = 'test_api_secret';

describe('CloudPayments signature', () => {
  it('matches the reference example for both headers', () => {
    expect(body.length).toBe(770);
    expect(signCloudPayments(body, secret)).toEqual({
      'Content-HMAC': 'sOuCbKphLhQ4Ss3bAvcN1C+5ncTnU2o2ipbHA6gNTZc=',
      'X-Content-HMAC': '5DJF+aJ1cnV5aXbhApjCPGi/x2iRurIWgVXLiOmxvS4=',
    });
    expect(verifyCloudPaymentsSignature(body, { contentHmac: 'sOuCbKphLhQ4Ss3bAvcN1C+5ncTnU2o2ipbHA6gNTZc=' }, secret)).toBe('raw');
    expect(verifyCloudPaymentsSignature(body, { xContentHmac: '5DJF+aJ1cnV5aXbhApjCPGi/x2iRurIWgVXLiOmxvS4=' }, secret)).toBe('decoded');
    // Swapped headers, as some integrations send them.
    expect(verifyCloudPaymentsSignature(body, { xContentHmac: 'sOuCbKphLhQ4Ss3bAvcN1C+5ncTnU2o2ipbHA6gNTZc=' }, secret)).toBe('raw');
    expect(verifyCloudPaymentsSignature(body, { contentHmac: '5DJF+aJ1cnV5aXbhApjCPGi/x2iRurIWgVXLiOmxvS4=' }, secret)).toBe('decoded');
  });

  it('refuses a re-encoded body, another secret, a changed byte and a missing signature', () => {
    expect(verifyCloudPaymentsSignature(body, { contentHmac: 'pFdRwkeX8Wl6fLE0r3kDD7/i2pkx3tzGr5/43bQJav4=' }, secret)).toBeUndefined();
    expect(verifyCloudPaymentsSignature(body, { contentHmac: 'sOuCbKphLhQ4Ss3bAvcN1C+5ncTnU2o2ipbHA6gNTZc=' }, 'other_secret')).toBeUndefined();
    const tampered = Buffer.from(body.toString().replace('Amount=299.00', 'Amount=999.00'));
    expect(verifyCloudPaymentsSignature(tampered, { contentHmac: 'sOuCbKphLhQ4Ss3bAvcN1C+5ncTnU2o2ipbHA6gNTZc=' }, secret)).toBeUndefined();
    expect(verifyCloudPaymentsSignature(body, {}, secret)).toBeUndefined();
    expect(verifyCloudPaymentsSignature(body, { contentHmac: 'short' }, secret)).toBeUndefined();
    expect(verifyCloudPaymentsSignature(body, { contentHmac: 'sOuCbKphLhQ4Ss3bAvcN1C+5ncTnU2o2ipbHA6gNTZc=' }, '')).toBeUndefined();
  });
});
