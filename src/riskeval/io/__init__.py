"""Readers: score tables, trec_eval output, runs and qrels, query variations."""
