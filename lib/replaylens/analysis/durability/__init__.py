"""The durability what-if: what a crash at the same point of progress would leave under each mode.

This module is the only place that knows the rules of LangGraph's three durability modes.
The CLI's ``what_if`` block, the Thread page timeline, the Resume simulator, the Learn
page and the Kill-test runs page all take their numbers and sentences from here.

The rules, read from the installed LangGraph (re-checked on langgraph 1.2.24; line numbers
drift, so each rule names its file and function):

* **The mode.** ``Pregel.stream`` takes ``durability`` (default ``"async"``, from
  ``config["configurable"]["__pregel_durability"]``) and hands it to every subgraph
  through the config (``pregel/main.py``, ``stream``: ``durability = config.get(CONF,
  {}).get(CONFIG_KEY_DURABILITY, "async")`` and "set durability mode for subgraphs").
* **Checkpoints (`put`).** After every superstep ``PregelLoop.after_tick`` calls
  ``_put_checkpoint({"source": "loop"})`` (``pregel/_loop.py``, ``after_tick``); a fresh
  input does the same with ``{"source": "input"}`` in ``_first``. Under ``sync`` and
  ``async`` the checkpoint is submitted to the loop's ``BackgroundExecutor`` through
  ``_checkpointer_put_after_previous``, which first waits for the previous put's future
  (``prev.result()``): **puts of one loop run one after another, in order**, in the
  background (``_put_checkpoint``: "if there's a previous checkpoint save in progress,
  wait for it"). Under ``exit`` ``do_checkpoint`` is false and nothing is submitted.
* **What sync waits for.** Only ``sync`` blocks: after ``after_tick`` the run loop does
  ``if durability_ == "sync": loop._put_checkpoint_fut.result()`` (``pregel/main.py``,
  ``stream``, inside ``while loop.tick()``), so the next superstep starts only once this
  step's checkpoint (and, chained, every earlier one) has landed. The input checkpoint is
  *not* waited for before the first step (the wait follows ``after_tick`` only); the
  first step's checkpoint, chained behind it, is. ``async`` starts the next step at once.
* **Writes (`put_writes`).** ``PregelLoop.put_writes`` (``pregel/_loop.py``) submits
  ``checkpointer.put_writes`` when a task finishes (``_runner.py``, ``commit``), under
  ``sync`` and ``async`` alike (``if self.durability != "exit"``), keyed by the id of the
  checkpoint the step started from. They are *not* chained behind the checkpoint puts and
  no mode waits for them, so a task's writes can land while the checkpoint they hang off
  never does (an orphan write). Under ``exit`` they are only kept in memory.
* **What exit saves.** ``_suppress_interrupt`` (``pregel/_loop.py``), pushed on the
  loop's exit stack, runs when the invocation returns, raises or stops at
  ``interrupt()``; under ``exit`` it calls ``_put_checkpoint(self.checkpoint_metadata)``
  (the last checkpoint the loop built, skipped when it is the one it loaded,
  ``checkpoint_id_saved``) and ``_put_pending_writes`` (the unfinished step's writes:
  ``__error__``, ``__interrupt__``, finished siblings' outputs). A subgraph saves there
  only when it raised or was interrupted, or was compiled with ``checkpointer=True``.
  A SIGKILL runs none of it: nothing of the killed invocation is saved.
* **The end of an invocation.** ``BackgroundExecutor.__exit__`` (``pregel/_executor.py``)
  waits for every submitted future, so when an invocation returns, raises or pauses
  every put it submitted has landed, in every mode. An earlier invocation of the same
  thread (a run that paused at ``interrupt()``, then answered) therefore left all its
  checkpoints (``sync``/``async``) or its one exit checkpoint (``exit``). A subgraph
  invocation has an executor of its own: its puts chain separately from the parent's,
  and its end waits for them.
* **Invocations of one thread.** A fresh input (`PregelLoop._first`, the
  ``elif input_writes := ...`` branch) discards the unfinished tasks of the checkpoint it
  starts from ("discard any unfinished tasks from previous checkpoint") and saves an input
  checkpoint at the next step, then ``__start__``: a later fresh input begins two steps
  after the last saved checkpoint. ``invoke(None)`` and ``Command(resume=...)`` load the
  latest checkpoint and re-run its due tasks, putting nothing before their step. Under
  ``exit`` each invocation that returned, raised or paused saved once; a fresh input that
  was killed is lost with its input, and a resume never runs its tasks.
* **Retries inside a step.** ``run_with_retry`` (``pregel/_retry.py``) runs a failed task
  again in the same process and superstep when its ``RetryPolicy`` allows; nothing is
  saved between the tries, and only a failure that ends the invocation saves its
  ``__error__`` write (``put_writes`` in ``pregel/_loop.py``, or ``_put_pending_writes`` on
  the way out under ``exit``).
* **Subgraphs.** A subgraph node runs in its own loop with its own executor (its puts
  chain apart from the parent's); a subgraph that is a graph's first node runs in the root's
  step 1. ``Command(graph=PARENT)`` raises ``ParentCommand`` out of the subgraph's step
  (``pregel/_retry.py``, ``run_with_retry``): no put for that step, and under exit the
  subgraph saves on the way out. A subgraph compiled with ``checkpointer=True`` keeps one
  namespace without task id, goes on from its history when run again, and under exit saves
  at the end of every run (``_suppress_interrupt``). See `evidence._place_nested`,
  `evidence._raised_out`, `evidence._split_runs`, `schedule.exit_saves`.
* **What a resume loads.** The checkpoint with the highest id in the root namespace; it
  re-runs the tasks due there that have no saved writes, and re-enters a subgraph at the
  subgraph's own latest checkpoint when the task that runs it is the same task (the
  parent checkpoint that scheduled it landed). With no checkpoint, ``invoke(None)``
  raises ``EmptyInputError`` and only a restart from the input is possible. Up to
  LangGraph 1.2.15 a re-entered subgraph runs its step's finished tasks again too: it does
  not hand their saved writes back (`rules.SUBGRAPH_WRITES_REUSED_SINCE`).

The counterfactual (`what_if`) respects time. The recording is evidence of when tasks ran
(effects-log ``start``/``end`` per attempt), when checkpoints were made (their ``ts``, and
the uuid6 time of the ids that orphan writes name) and which writes landed; it is not
evidence of another mode's schedule. So: the recorded mode's own waits are removed
(under ``sync`` with latency L, each step waited for its put); the steps are re-timed
under the target mode's rule; the crash is mapped to the same point of progress (the
same task attempt, the same time into it, which is how a kill test aims its kill); then
the puts and writes that would have landed by then are counted, and the resume those
leave is worked out task by task. The recorded mode at the recorded latency is the
recording itself. Which inputs were used and which had to be assumed is listed in each
outcome's ``assumptions``, where each figure comes from in its ``basis``.

The modules: `rules` (the modes, constants, `Recording`), `evidence` (`gather`: the
recording as invocations, supersteps and puts), `inference` (the recorded mode told from
the evidence when nothing says it), `schedule` (re-timing, what landed at the crash),
`outcomes` (`ModeOutcome`, `what_if`, `what_if_at`), `words` (sentences and captions).
"""

from __future__ import annotations

from replaylens.analysis.durability._memo import one_reading_scope
from replaylens.analysis.durability.evidence import uuid6_time
from replaylens.analysis.durability.inference import Inference, infer_recorded_mode
from replaylens.analysis.durability.outcomes import (
    ModeOutcome,
    lost_input_attempts,
    what_if,
    what_if_at,
)
from replaylens.analysis.durability.rules import (
    DEFAULT_LATENCY,
    MODES,
    RACE,
    TICK,
    WRITE_COST,
    Ending,
    Mode,
    Recording,
    is_recorded,
    mode_in_release,
    release_assumption,
    subgraph_writes_reused,
)
from replaylens.analysis.durability.words import (
    ENDING_WORDS,
    KIND_UNSURE,
    MODE_EXPLAINED,
    MODE_RULES,
    WHAT_IF_NOTE,
    mode_sentence,
)

__all__ = [
    "one_reading_scope",
    "DEFAULT_LATENCY",
    "ENDING_WORDS",
    "KIND_UNSURE",
    "MODES",
    "MODE_EXPLAINED",
    "MODE_RULES",
    "RACE",
    "TICK",
    "WHAT_IF_NOTE",
    "WRITE_COST",
    "Ending",
    "Inference",
    "Mode",
    "ModeOutcome",
    "Recording",
    "infer_recorded_mode",
    "is_recorded",
    "mode_in_release",
    "release_assumption",
    "subgraph_writes_reused",
    "lost_input_attempts",
    "mode_sentence",
    "uuid6_time",
    "what_if",
    "what_if_at",
]
