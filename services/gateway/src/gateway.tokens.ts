/** Dependency-injection tokens of the gateway (plain objects built in createGatewayApp). */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
export const RPC_CLIENT = Symbol('RPC_CLIENT');
export const JWT_VERIFIER = Symbol('JWT_VERIFIER');
export const READINESS_PROBE = Symbol('READINESS_PROBE');
export const PUBLIC_PAGE_CACHE = Symbol('PUBLIC_PAGE_CACHE');
export const MARKET_EVENTS_INVALIDATOR = Symbol('MARKET_EVENTS_INVALIDATOR');
