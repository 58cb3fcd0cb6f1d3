"""What the dashboard shows, computed without Streamlit.

The pages only read widgets and draw; everything they draw comes from here (tables,
catalogues of databases, campaign comparisons, the incident report, the superstep
lesson) or from `replaylens.figures`. Nothing in this package imports Streamlit, so all
of it is tested as plain functions.
"""
