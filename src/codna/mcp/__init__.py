"""MCP tools over Streamable HTTP and stdio: parse, call one service, shape the answer."""
