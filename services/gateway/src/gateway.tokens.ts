/** Dependency-injection tokens of the gateway (plain objects built in createGatewayApp). */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
export const RPC_CLIENT = Symbol('RPC_CLIENT');
export const JWT_VERIFIER = Symbol('JWT_VERIFIER');
export const READINESS_PROBE = Symbol('READINESS_PROBE');
