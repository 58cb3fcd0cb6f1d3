"""Example LangGraph graphs that record their side effects, used by the tests and the docs."""
