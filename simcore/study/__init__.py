"""Study tools built on runs: experiment specs (arms, strengths, sweeps) and the strength ladder."""
