"""`examples.graphs` is `replaylens.examples.graphs`: one module under two names, so the
kill-test manifests recorded as `examples.graphs:…` keep resolving from a checkout."""

import sys

from replaylens.examples import graphs as _graphs

sys.modules[__name__] = _graphs
