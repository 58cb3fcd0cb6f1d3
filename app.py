"""`streamlit run app.py`: the dashboard from a checkout. The app lives in the package
(`replaylens.dashboard`), so an installed wheel serves the same pages; this file and
`pages/` are entry points over it, not copies."""

from replaylens.dashboard.ui.app import main

main()
