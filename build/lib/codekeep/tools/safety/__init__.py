"""Safety boundaries for tool calls: the path guard and the command policy."""
