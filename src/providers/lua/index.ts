/** The Lua sandbox (L-2), shared by the provider adapters and Lua script plugins (P-4). */
export { LuaSandbox, type LuaSandboxOptions, type HostFunction, type LuaLogLevel } from './lua-sandbox.js';
export { registerHttpFunctions, refuseOwnPorts, isLocalHostName, type HttpFunctionOptions } from './http-functions.js';
