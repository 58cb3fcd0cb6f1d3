"""replaylens dashboard: `replaylens serve [PATH ...]` runs `streamlit run` on this file.

The entry point only sets up navigation and the sidebar; every page lives in
`replaylens/dashboard/ui/screens/` and draws what the `replaylens` library computes.
The repository's top-level `app.py` calls `main()` too, for `streamlit run app.py`.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from replaylens.dashboard.ui import common as ui
from replaylens.dashboard.ui import look


def page_icon() -> Any:
    """The favicon, drawn here and served by this server.

    A `:material/…:` icon makes the browser fetch it from a font host on the internet and an
    emoji from an emoji CDN; an evidence tool that works offline makes no outside request."""
    from PIL import Image, ImageDraw

    img = Image.new("RGBA", (32, 32), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.ellipse((2, 2, 29, 29), outline=(59, 91, 219, 255), width=4)
    draw.polygon([(13, 9), (13, 23), (23, 16)], fill=(59, 91, 219, 255))
    return img


def main() -> None:
    """Configure the page, route to the chosen page, draw the sidebar, run the page."""
    st.set_page_config(page_title="replaylens", page_icon=page_icon(), layout="wide")
    look.apply()
    current = st.navigation(ui.navigation_pages(), position="hidden")
    st.session_state["_page"] = current.url_path  # links drawn by shared helpers stay on this page
    with ui.friendly_errors():
        ui.sidebar()
    current.run()


if __name__ == "__main__":
    main()
