"""Figure builders: model objects or plain data in, a Plotly figure or a DOT string out.

Pure functions, no Streamlit, so each is tested on what it returns (traces, shapes,
DOT text) rather than by looking at a browser.
"""
