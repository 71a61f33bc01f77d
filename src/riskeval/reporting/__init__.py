"""The HTML risk report: :func:`report` writes one self-contained page (tables, inline SVG plots,
the inputs and settings).  Sections are pluggable: see :mod:`riskeval.reporting.build`."""

from riskeval.reporting.build import Report, ReportContext, Section, report

__all__ = ["Report", "ReportContext", "Section", "report"]
