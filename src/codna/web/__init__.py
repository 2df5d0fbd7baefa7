"""The web UI: server-rendered HTML views on the same services as the API and MCP."""
