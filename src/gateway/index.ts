// `switchyard-runtime/gateway`: Switchyard as an MCP server (the code-mode gateway that
// `switchyard serve` runs), for embedding in a process of your own. Needs no optional package.

export { createGatewayServer, type GatewayServer, type GatewayServerOptions } from "./gateway-server.js";
export { CANNOT_ASK_REASON } from "./gateway-approvals.js";
export { serveGateway, type ServeGatewayOptions, type RunningGateway } from "./serve-gateway.js";
export type { HttpSessionLimits } from "./http-sessions.js";
