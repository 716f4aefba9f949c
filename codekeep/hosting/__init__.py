"""Hosting one workspace folder for a long-lived door: its services on their own serial
worker thread, its index kept live by a file watcher.

The language server (``codekeep.server``) and the MCP door (``codekeep.mcp``) both host
folders this way; keeping the pieces here means neither door imports the other.
"""
