"""One Streamlit script per page. Streamlit executes them (`st.Page(path)`); nothing
imports them as modules. Each reads its widgets, calls the core, and draws."""
