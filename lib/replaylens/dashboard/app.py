"""replaylens dashboard: `replaylens serve [PATH ...]` runs `streamlit run` on this file.

The entry point only sets up navigation and the sidebar; every page lives in
`replaylens/dashboard/screens/` and draws what the `replaylens` library computes.
The repository's top-level `app.py` calls `main()` too, for `streamlit run app.py`.
"""

from __future__ import annotations

import streamlit as st

from replaylens.dashboard import common as ui


def main() -> None:
    """Configure the page, route to the chosen page, draw the sidebar, run the page."""
    st.set_page_config(page_title="replaylens", page_icon=":material/replay:", layout="wide")
    current = st.navigation(ui.navigation_pages(), position="hidden")
    st.session_state["_page"] = current.url_path  # links drawn by shared helpers stay on this page
    with ui.friendly_errors():
        ui.sidebar()
    current.run()


if __name__ == "__main__":
    main()
