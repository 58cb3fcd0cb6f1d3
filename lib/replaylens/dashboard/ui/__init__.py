"""The Streamlit layer of the dashboard: the entry script (`app.py`), the glue every page
shares (`common.py`, gathered from `data`, `live`, `picker`, `widgets` and `navigation`, each
by its job), blocks drawn by more than one page and one script per page
(`screens/`). This is the only package of replaylens that imports Streamlit; everything it
draws is computed by the plain view models one folder up and by the core library."""
