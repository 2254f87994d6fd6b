"""What advisor hands back: renderers, launch files, sweeps, follow-up answers and atomic writes."""
