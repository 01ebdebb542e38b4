"""The front ends: the command line, the MCP server, the remote client and rendering."""
