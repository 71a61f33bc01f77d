"""The ``riskeval`` command line: a thin shell over the library (see :mod:`riskeval.cli.main`)."""
