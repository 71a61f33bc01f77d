"""Analyses built on the measures: tables over α grids, bootstrap intervals, the baseline-bias study."""
