"""Numeric kernels over arrays (numpy), no pandas, no I/O."""
