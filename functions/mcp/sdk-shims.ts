import process from 'node:process';

/**
 * The MCP SDK's runtime shims (`@modelcontextprotocol/server/_shims`) as this function is built
 * with them (`infra/build.ts`): Node's `process`, as the SDK's Node shims export it, and the SDK's
 * CfWorker JSON Schema validator as the default, the one it picks on edge runtimes, instead of
 * ajv. Ajv's modules all run when it is imported, about 20 ms of a cold start's CPU for a validator
 * the agents' servers never call: they declare no output schemas and ask for no elicitation, their
 * tools' inputs are checked by zod, and they are given the CfWorker validator anyway
 * (`lib/agents/mcp.ts`).
 */
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
export { process };
