"""Numeric kernels over whole systems × topics arrays: no pandas, no I/O, no hidden randomness."""
