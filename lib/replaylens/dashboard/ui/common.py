"""The one import every page makes (`from replaylens.dashboard.ui import common as ui`): the
names the pages call, gathered from the modules that hold them, each by its job:

- `data`: what the pages read, opened once and cached (configuration, catalogue, sources,
  the thread list and statuses, threads, plans, effects logs);
- `live`: the polling that redraws an open page when its database changes;
- `picker`: the sidebar's data picker, uploads and glossary;
- `widgets`: links, friendly errors and the widgets several pages share;
- `navigation`: the pages and the navigation between them.

Nothing is defined here: a name's home is the module it is imported from.
"""

from __future__ import annotations

from replaylens.dashboard.ui.data import (  # noqa: F401 - the pages' names
    allow_list,
    cached,
    catalog,
    config,
    download_name,
    effects,
    effects_label,
    lru,
    open_item,
    plan,
    recording,
    replay_counts,
    shared_state,
    status_cache,
    status_job,
    summaries,
    thread,
    thread_index,
    thread_version,
    under_test,
    upload_folder,
)
from replaylens.dashboard.ui.live import (  # noqa: F401 - the pages' names
    FIRST_WAIT_SECONDS,
    POLL_SECONDS,
    QUIET_POLL_SECONDS,
    REDRAW_EVERY_SECONDS,
    change_token,
    follow,
    page_started,
    poll_interval,
    threads_token,
    upload_ids,
)
from replaylens.dashboard.ui.navigation import (  # noqa: F401 - the pages' names
    PAGES,
    ensure_navigation,
    navigation_links,
    navigation_pages,
    page,
)
from replaylens.dashboard.ui.picker import (  # noqa: F401 - the pages' names
    GLOSSARY,
    SELECT_FITS_CHARS,
    current,
    graph_answers,
    graph_field,
    graph_ref,
    sidebar,
    synced_selectbox,
)
from replaylens.dashboard.ui.widgets import (  # noqa: F401 - the pages' names
    LATENCY_DEFAULT_MS,
    MAX_LISTED_THREADS,
    MODES,
    WHY_CAPTION,
    absolute,
    campaign_banner,
    friendly_errors,
    latency_picker,
    link,
    md_quote,
    metric_row,
    mode_answer,
    mode_picker,
    need_database,
    open_tab,
    thread_header,
    thread_picker,
    timeline_chart,
    unknown_thread_list,
    verdict_block,
    wrapping_table,
)
