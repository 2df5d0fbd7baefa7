"""Routines: agent jobs that run as a person and speak MCP like any agent."""
