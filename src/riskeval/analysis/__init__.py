"""Studies, sweeps and tables built from the core kernels (pandas allowed)."""
