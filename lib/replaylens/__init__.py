"""replaylens: where will a LangGraph thread resume from, and what will happen twice?

The core library. It imports without Streamlit, and keeps its own imports lean so that
the CLI answers quickly: heavy modules are imported where they are used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["__version__", "open_source", "record_effect", "ReplaylensError"]

if TYPE_CHECKING:  # pragma: no cover
    from replaylens.effects.recorder import record_effect
    from replaylens.errors import ReplaylensError
    from replaylens.sources import open_source


def __getattr__(name: str) -> Any:
    # Lazy exports: `from replaylens import record_effect` inside a node must not pull in
    # pandas or the reader, and the CLI must not pay for the recorder.
    if name == "record_effect":
        from replaylens.effects.recorder import record_effect

        return record_effect
    if name == "open_source":
        from replaylens.sources import open_source

        return open_source
    if name == "ReplaylensError":
        from replaylens.errors import ReplaylensError

        return ReplaylensError
    raise AttributeError(name)
