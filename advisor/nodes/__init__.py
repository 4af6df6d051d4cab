"""Graph nodes: each module builds one node with its dependencies bound (no globals)."""
