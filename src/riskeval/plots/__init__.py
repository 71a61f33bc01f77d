"""Plots (matplotlib, imported on first use).

Every plotting function takes ``ax=None`` (a new figure is made when it is ``None``) and returns a
display object holding the data it drew and the figure (``figure_``, ``ax_``), in the style of
scikit-learn's ``RocCurveDisplay``; nothing calls ``plt.show()``.  Risk plots live in
:mod:`riskeval.plots.risk`.
"""
