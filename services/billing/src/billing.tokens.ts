/** Dependency-injection tokens of the billing service (plain objects built in createBillingApp). */
export const BILLING_SERVICE = Symbol('BILLING_SERVICE');
