"""Plots (matplotlib, imported lazily): functions take ``ax=None`` and return a display object."""
