"""Example LangGraph graphs that record their side effects.

They ship with the package so that `replaylens killtest replaylens.examples.graphs:linear`
works from an installed wheel; the tests, the bundled samples and the docs use them.
"""
