"""Process supervision from exact states (issue 46; docs/process.md): step-labelled trajectories whose labels
vcot knows exactly, for measuring step judges and training process reward models."""
