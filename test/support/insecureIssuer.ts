/**
 * Imported before the SDK's auth router, which reads this once when it loads: lets the test OAuth
 * server be an issuer at http on any loopback address, not only localhost and 127.0.0.1 (see
 * oauthMcpServer.ts for why a test in VS Code for the web needs another one). Tests only.
 */
process.env.MCP_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL = '1';
