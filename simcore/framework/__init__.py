"""The game framework: validated rules, the GameSpec record and registry, task bases, streaming summaries, users' own events and metrics."""
