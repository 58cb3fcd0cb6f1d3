"""Recorded real kills for the what-if's subgraph, slow-store and bare-log rules.

Each campaign is a real run of a langgraph-tests corpus shape (`examples/langgraph_tests.py`)
under two durability modes, SIGKILLed at the shape's kill point and resumed in a fresh
process by `killtest.campaign.run_campaign`, then kept under `tests/whatif_kills/<name>/`
(the manifest, the databases at the kill and after the resume, the effects logs). The tests
(`test_durability_subgraphs.py`) judge the model against these recordings without killing
anything, so a loaded machine cannot move a kill; `python scripts/make_whatif_kills.py`
records them again (a recording is kept only when every precondition below holds).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from replaylens.analysis.durability import Recording
from replaylens.killtest.manifest import graph_cache
from replaylens.killtest.validate import manifest_recording, measure, plan_for

ROOT = Path(__file__).resolve().parent / "whatif_kills"
UNIT = 0.4
"""Seconds of one sleep unit: the corpus's own, so every kill lands at least 0.2 s from any
other task's start or end."""


@dataclass(frozen=True)
class KillCampaign:
    shape: str
    kill: int  # 0: the shape's early kill point, 1: its late one
    modes: tuple[str, ...]
    latency: float
    api: str = ""  # "ainvoke": LangGraph's async loop; "" the shape's own (invoke for most)
    backend: str = "sqlite"  # "postgres": a throw-away server (the database at the kill is
    # kept as a SQLite copy beside it, as `validate --backend postgres` keeps it)
    langgraph: str = ""  # the LangGraph release that wrote it, where not the one pinned here
    # (recorded in a virtual environment of its own; its manifest names the release)
    tag: str = ""  # names apart a second recording of a point already kept (its loop)
    shift: float = 0.0  # sleep units the kill was aimed later (`validate --kill-shift`)
    sleep: float = 0.0  # seconds a sleep unit lasts (`validate --sleep`), where not `UNIT`

    @property
    def name(self) -> str:
        """Its folder under `tests/whatif_kills/`: shape, kill point (its shift), latency
        (backend, and LangGraph release)."""
        where = "" if self.backend == "sqlite" else f"-{self.backend}"
        release = f"-lg{self.langgraph}" if self.langgraph else ""
        shifted = f"-shift{self.shift:+g}u" if self.shift else ""
        unit = f"-sleep{self.sleep:g}" if self.sleep else ""
        return (
            f"{self.shape}-{'early' if self.kill == 0 else 'late'}{shifted}{unit}"
            f"-{self.latency:g}s{where}{release}{'-' + self.tag if self.tag else ''}"
        )


CAMPAIGNS: dict[str, KillCampaign] = {
    c.name: c
    for c in (
        KillCampaign("parent_command", 1, ("sync", "exit"), 0.0),
        KillCampaign("subgraph_checkpoint_true", 1, ("sync", "exit"), 0.0),
        KillCampaign("parent_command", 0, ("sync", "exit"), 0.25),
        KillCampaign("long_chain", 1, ("async", "exit"), 0.25),
        KillCampaign("imp_tasks", 0, ("async", "exit"), 0.25),
        KillCampaign("subgraph_checkpoint_true", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("doubly_nested", 0, ("sync", "async"), 0.25),
        KillCampaign("parent_command", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("multiple_interrupts", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("interrupt_task_functional", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("interrupt_subgraph", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("retry_two_effects", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("error_handler", 1, ("sync", "async", "exit"), 0.25),
        # recorded by CI's own reduced corpus on a loaded machine (stop 51): a 0.33 s pause
        # before the killed node of the exit run
        KillCampaign("dynamic_interrupt", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("multi_turn", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("send_to_subgraph", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("send_to_subgraph", 0, ("sync", "async"), 0.25),
        KillCampaign("entrypoint_stateful", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("nested_interrupts_parallel", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("parallel_interrupts", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("multiple_subgraphs_checkpointer", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("multiple_subgraphs_checkpointer", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("subgraph_durability_inherited", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("multiple_subgraphs_checkpointer", 0, ("sync", "async", "exit"), 1.0),
        KillCampaign("multiple_subgraphs_checkpointer", 1, ("sync", "async", "exit"), 1.0),
        KillCampaign("imp_tasks", 0, ("sync", "async", "exit"), 1.0),
        KillCampaign("breakpoint_update_state", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("stateless_subgraph_interrupts", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("max_concurrency_send", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("react_agent_tool_interrupt", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("imp_exception", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("imp_exception", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("multiple_interrupts_functional", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("multiple_interrupts_functional", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("multiple_subgraphs_mixed_state_graph", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("react_agent_tool_error", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("subgraph_parallel", 1, ("sync", "async", "exit"), 1.0),
        KillCampaign("imp_task_cancel", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("node_cancellation_async", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("command_goto_breakpoint", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("update_as_input", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("waiting_edge_via_branch", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("doubly_nested_interrupts", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("recursion_limit_retry", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("doubly_nested_interrupts", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("parent_command_nested", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("stateful_subgraph_interrupt", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("multiple_subgraphs_mixed_state_graph", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("pregel_map_subgraph", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("pregel_map_subgraph", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("stateful_namespace_isolation", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("stateful_namespace_isolation", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("weather_subgraph", 0, ("sync", "async", "exit"), 0.0),
        # a run from an earlier checkpoint: exit keeps none to run from, so it is never killed
        KillCampaign("fork_replay", 1, ("sync", "async"), 0.25),
        KillCampaign("parent_command_deeply_nested", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("stateful_namespace_isolation", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("delta_channel_turns", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("subgraph_reenter_interrupt", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("multiple_subgraphs_functional", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("parallel_interrupts_double", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("parallel_interrupts_double", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("pregel_interrupt_after", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("dynamic_interrupt_subgraph", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("subgraph_replay_then_resume", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("subgraph_replay_then_resume", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("subgraph_replay_then_resume", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("double_interrupt_subgraph", 1, ("sync", "async", "exit"), 0.0),
        # exit has no put to wait for and reaches the calling node's line: a kill elsewhere
        KillCampaign("double_interrupt_subgraph", 1, ("sync", "async"), 0.25),
        KillCampaign("interrupt_update_resume", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("error_handler_subgraph_async", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("error_handler_subgraph_async", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("error_handler_subgraph_async", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("sequential_interrupts_fork", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("replay_before_interrupt", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("error_handler_subgraph_async", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("stateful_subgraph_replayed_tick", 0, ("sync", "async"), 0.0),
        KillCampaign("stateful_subgraph_replayed_tick", 1, ("sync", "async"), 0.25),
        KillCampaign("parallel_stateful_subgraphs_replayed", 0, ("sync", "async"), 0.25),
        KillCampaign("parallel_stateful_subgraphs_replayed", 1, ("sync", "async"), 0.25),
        KillCampaign("three_level_stateful_replayed", 0, ("sync", "async"), 0.25),
        KillCampaign("three_level_stateful_replayed", 1, ("sync", "async"), 0.25),
        KillCampaign("copy_fork_interrupt", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("subgraphs_in_task_entrypoint", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("tasks_before_interrupts", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("subgraph_checkpoint_replayed", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("three_level_middle_interrupts", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("three_level_middle_interrupts", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("three_level_middle_interrupts", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("two_interrupts_replayed", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("subgraph_fork_no_checkpointer", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("stateful_subgraph_forked_turns", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("first_invocation_replayed", 0, ("sync", "async"), 0.25),
        KillCampaign("entrypoint_update_state", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("entrypoint_update_state", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("stateful_subgraph_forked_turns", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("middle_checkpoint_replayed", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("fork_branch_in_subgraph", 0, ("sync", "async"), 0.25),
        KillCampaign("fork_branch_in_subgraph", 1, ("sync", "async"), 0.25),
        KillCampaign("checkpoint_recovery_async", 1, ("sync", "exit"), 0.0),
        KillCampaign("unsaved_subgraph_async", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("error_handlers_both_crash", 0, ("sync", "async"), 0.25),
        KillCampaign("error_handlers_both_crash", 1, ("sync", "exit"), 0.0),
        KillCampaign("default_error_handler", 0, ("sync", "exit"), 0.0),
        KillCampaign("stateful_subgraph_replay_then_resume", 0, ("sync", "exit"), 0.25),
        KillCampaign("error_handlers_per_node", 1, ("sync", "exit"), 0.0),
        KillCampaign("multiple_subgraphs_same", 1, ("sync", "exit"), 0.0),
        KillCampaign("drain_from_subgraph", 1, ("sync", "exit"), 0.0),
        KillCampaign("timeout_then_retry", 1, ("sync", "exit"), 0.0),
        KillCampaign("three_level_first_interrupt_forked", 0, ("sync", "exit"), 0.0),
        KillCampaign("child_own_thread", 0, ("sync", "async", "exit"), 0.05),
        KillCampaign("step_timeout", 0, ("sync", "async", "exit"), 0.15),
        KillCampaign("step_timeout", 0, ("sync", "async", "exit"), 0.25),
        KillCampaign("react_agent_tool_interrupt", 1, ("sync", "async", "exit"), 0.1, "ainvoke"),
        KillCampaign("step_timeout", 0, ("sync", "async", "exit"), 0.1, backend="postgres"),
        KillCampaign("parallel_interrupts", 0, ("sync", "async", "exit"), 0.25, backend="postgres"),
        KillCampaign("parallel_interrupts", 0, ("sync", "async", "exit"), 0.1),
        KillCampaign("send_to_subgraph", 1, ("sync", "async", "exit"), 0.1),
        KillCampaign("subgraph_invoked_in_node", 1, ("sync", "async", "exit"), 0.1),
        KillCampaign("multiple_subgraphs_checkpointer", 0, ("sync", "async", "exit"), 0.05),
        KillCampaign("parent_command", 1, ("sync", "async", "exit"), 1.0),
        KillCampaign("multiple_subgraphs_functional", 1, ("sync", "async", "exit"), 1.0),
        KillCampaign("error_handler", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("stateful_subgraph_interrupt", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign("pending_writes_resume", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("send_to_subgraph", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("parallel_interrupts", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign("error_handler_subgraph_async", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("retry_two_effects", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("retry_two_effects", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign("fork_replay", 0, ("sync", "async"), 0.5),  # exit: a replay with nothing due
        KillCampaign("doubly_nested", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign("multi_resume", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("send_retry_policy", 1, ("sync", "async", "exit"), 0.5),
        # (exit: no checkpoint had parent_step due to edit, the run ran nothing: no kill)
        KillCampaign("three_level_stateful_forked", 0, ("sync", "async"), 0.5),
        KillCampaign("three_level_stateful_forked", 1, ("sync", "async"), 0.5),
        KillCampaign("subgraph_checkpoint_true", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign("waiting_edge_loop", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign("parent_command_nested", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("defer_node", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign("interrupt_in_entrypoint_body", 0, ("sync", "async", "exit"), 1.0),
        KillCampaign("join_loop_cond_edge", 0, ("sync", "async", "exit"), 1.0),
        KillCampaign("join_loop_cond_edge", 1, ("sync", "async", "exit"), 1.0),
        KillCampaign("subgraphs_in_task_entrypoint", 0, ("sync", "async", "exit"), 1.0),
        KillCampaign("subgraphs_in_task_entrypoint", 1, ("sync", "async", "exit"), 1.0),
        # the async resume stopped at the join: its saved barrier held a later arrival
        KillCampaign("join_loop_cond_edge", 0, ("sync", "async", "exit"), 0.5, backend="postgres"),
        # the async resume ran the second round's retrievers and stopped at the join: its
        # saved barrier held every arrival while decider was not due
        KillCampaign("join_loop_cond_edge", 1, ("sync", "async", "exit"), 0.5, backend="postgres"),
        KillCampaign("send_dedupe_on_resume", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("send_dedupe_on_resume", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign("pregel_interrupt_after", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("checkpoint_recovery_async", 0, ("sync", "async", "exit"), 1.0, "ainvoke"),
        KillCampaign("stateless_subgraph_parent_replay", 0, ("sync", "async", "exit"), 0.1),
        KillCampaign("parent_command_stateful", 0, ("sync", "async", "exit"), 1.0, "ainvoke"),
        KillCampaign(
            "stateless_subgraph_parent_replay", 1, ("sync", "async", "exit"), 0.4, "ainvoke"
        ),
        KillCampaign("pregel_interrupt_after", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign("command_goto_breakpoint", 1, ("sync", "async", "exit"), 0.5),
        KillCampaign(
            "parent_command_deeply_nested", 1, ("sync", "async", "exit"), 1.0, api="ainvoke"
        ),
        # killed before the subgraph's first node: a task that logged nothing repeats nothing
        KillCampaign("multiple_subgraphs_same", 0, ("sync", "async", "exit"), 0.25, "ainvoke"),
        KillCampaign(
            "subgraph_checkpoint_true", 0, ("sync", "async", "exit"), 0.25, "ainvoke", "postgres"
        ),
        KillCampaign(
            "subgraph_durability_inherited",
            1,
            ("sync", "async", "exit"),
            1.0,
            "ainvoke",
            "postgres",
        ),
        KillCampaign("stateful_subgraph_interrupt", 0, ("sync", "async", "exit"), 2.0),
        KillCampaign("stateful_subgraph_interrupt", 1, ("sync", "async", "exit"), 2.0),
        KillCampaign("doubly_nested_interrupts", 0, ("sync", "async", "exit"), 2.0, "ainvoke"),
        KillCampaign("doubly_nested_interrupts", 1, ("sync", "async", "exit"), 2.0, "ainvoke"),
        KillCampaign("send_to_subgraph", 1, ("sync", "async", "exit"), 2.0, backend="postgres"),
        KillCampaign("multiple_subgraphs_functional", 1, ("sync", "async", "exit"), 0.75),
        KillCampaign("three_level_stateful_forked", 1, ("sync", "async"), 0.75),
        KillCampaign("parallel_interrupts", 0, ("sync", "async", "exit"), 2.0, backend="postgres"),
        KillCampaign(
            "subgraph_first_interrupt_travel",
            1,
            ("sync", "async", "exit"),
            2.0,
            "ainvoke",
            "postgres",
        ),
        KillCampaign("max_concurrency_send", 1, ("sync", "async", "exit"), 1.5),
        KillCampaign(
            "multiple_interrupts_functional", 1, ("sync", "async", "exit"), 1.5, "ainvoke"
        ),
        KillCampaign("multi_resume", 0, ("sync", "async", "exit"), 0.3, "ainvoke"),
        KillCampaign("max_concurrency_send", 0, ("sync", "async", "exit"), 0.3, "ainvoke"),
        KillCampaign("step_timeout", 0, ("sync", "async", "exit"), 0.5, "ainvoke", "postgres"),
        KillCampaign("step_timeout", 1, ("sync", "async", "exit"), 0.5, "ainvoke", "postgres"),
        KillCampaign(
            "parent_command_deeply_nested", 1, ("sync", "async", "exit"), 0.5, api="ainvoke"
        ),
        KillCampaign(
            "send_retry_policy", 0, ("sync", "async", "exit"), 0.15, "ainvoke", "postgres"
        ),
        KillCampaign(
            "command_goto_breakpoint", 0, ("sync", "async", "exit"), 0.3, backend="postgres"
        ),
        KillCampaign(
            "command_goto_breakpoint", 1, ("sync", "async", "exit"), 0.3, backend="postgres"
        ),
        KillCampaign("stateful_subgraph_replayed_tick", 0, ("sync", "async"), 2.0),
        KillCampaign("send_to_subgraph", 0, ("sync", "async", "exit"), 0.3, "ainvoke", "postgres"),
        KillCampaign(
            "imp_nested_interrupt", 0, ("sync", "async", "exit"), 0.05, "ainvoke", "postgres"
        ),
        # LangGraph 0.6.11 with langgraph-checkpoint-sqlite 2.0.11: no task paths in writes
        KillCampaign("imp_tasks", 0, ("sync", "async", "exit"), 0.25, langgraph="0.6.11"),
        # Up to LangGraph 1.2.15 a re-entered subgraph runs its finished tasks again
        KillCampaign(
            "stateful_subgraph_interrupt", 1, ("sync", "async", "exit"), 0.25, langgraph="1.1.10"
        ),
        KillCampaign("interrupt_subgraph", 1, ("sync", "async", "exit"), 0.25, langgraph="1.1.10"),
        KillCampaign("parent_command", 1, ("sync", "async", "exit"), 0.5, langgraph="0.6.11"),
        KillCampaign(
            "multiple_interrupts_functional", 1, ("sync", "async", "exit"), 0.5, langgraph="0.6.11"
        ),
        KillCampaign("error_handler", 0, ("sync", "async", "exit"), 0.5, langgraph="0.6.11"),
        KillCampaign(
            "send_to_subgraph", 0, ("sync", "async", "exit"), 0.3, "ainvoke", langgraph="0.6.11"
        ),
        KillCampaign(
            "subgraph_checkpoint_true",
            1,
            ("sync", "async", "exit"),
            0.5,
            backend="postgres",
            langgraph="1.2.15",
        ),
        *(
            KillCampaign(
                "fork_retains_writes",
                kill,
                ("sync", "async"),
                0.2,
                backend="postgres",
                langgraph="0.6.11",
            )  # fmt: skip
            for kill in (0, 1)
        ),
        # LangGraph 0.4.10: no durability modes yet; checkpoint_during runs async or exit
        *(
            KillCampaign(shape, kill, ("async", "exit"), 0.3, langgraph="0.4.10")
            for shape, kill in (
                ("interrupt_subgraph", 1),
                ("send_to_subgraph", 0),
                ("send_to_subgraph", 1),
                ("stateful_subgraph_interrupt", 0),
            )
        ),
        KillCampaign(
            "stateful_subgraph_latest_after_replay",
            1,
            ("sync", "async", "exit"),
            0.35,
            "ainvoke",
            backend="postgres",
            langgraph="0.6.11",
        ),
        KillCampaign(
            "replay_branch_in_subgraph",
            1,
            ("sync", "async"),
            0.2,
            backend="postgres",
            langgraph="0.6.11",
        ),
        KillCampaign(
            "parallel_interrupts_double",
            0,
            ("sync", "async", "exit"),
            0.6,
            "ainvoke",
            langgraph="1.0.10",
        ),
        # LangGraph 0.2.76 (async only) on SQLite at 0.3 s: a node's task pre-v3 rows leave
        # unnamed, named by the graph it ran or by the log
        KillCampaign("subgraph_invoked_in_node", 0, ("async",), 0.3, langgraph="0.2.76"),
        KillCampaign("multiple_interrupts", 0, ("async",), 0.3, langgraph="0.2.76"),
        KillCampaign("stateful_namespace_isolation", 0, ("async",), 0.75, langgraph="0.2.76"),
        # LangGraph 0.3.34 at 0.4 s: an input's writes saved under exit, its checkpoint not
        KillCampaign("partial_pending_checkpoint", 0, ("async", "exit"), 0.4, langgraph="0.3.34"),
        # LangGraph 0.5.4 on Postgres under `ainvoke` at 0.6 s: killed on the way out of a pause
        KillCampaign(
            "multi_resume",
            0,
            ("async", "exit"),
            0.6,
            "ainvoke",
            backend="postgres",
            langgraph="0.5.4",
        ),  # fmt: skip
        # round 50 at 0 s: a failure cancelled by its sibling's raise, in a bare log
        KillCampaign("sibling_error_cancels", 1, ("sync", "async", "exit"), 0.0),
        # round 50 on Postgres under `ainvoke` at 0.8 s: an entrypoint's pause a bare log hides
        KillCampaign(
            "falsy_task_interrupt", 1, ("sync", "async", "exit"), 0.8, "ainvoke", "postgres"
        ),
        # round 52 on LangGraph 1.1.10 at 0.65 s: an input checkpoint an exit recording cannot date
        KillCampaign(
            "imp_sync_from_async", 0, ("sync", "async", "exit"), 0.65, "ainvoke", langgraph="1.1.10"
        ),
        # round 53 on LangGraph 1.1.10 at 0.65 s: a node's own CancelledError, saved as its
        # error, and the run went on without it
        KillCampaign(
            "user_cancelled_branch",
            0,
            ("sync", "async", "exit"),
            0.65,
            "ainvoke",
            langgraph="1.1.10",
        ),  # fmt: skip
        # round 55 at 0 and 0.25 s: a replay from the final checkpoint that ran nothing, then
        # an input
        *(
            KillCampaign("replay_final_noop", 0, ("sync", "async", "exit"), lat)
            for lat in (0.0, 0.25)
        ),
        # round 56 at 0 s: three replays of one checkpoint, each pausing before it logs
        KillCampaign("replays_refire_interrupt", 0, ("sync", "async", "exit"), 0.0),
        # round 59 at 0 s: a step that raised applying two Overwrite writes; a copy of the
        # final checkpoint edited in the same call (0.25 s); round 60 at 0 s: two writes of
        # a plain key in one step
        KillCampaign("overwrite_parallel_error", 1, ("sync", "async", "exit"), 0.0),
        KillCampaign("copy_update_latest", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign("last_value_conflict", 0, ("sync", "async", "exit"), 0.0),
        # round 59 on LangGraph 1.1.10 at 0.65 s: a copy edited in the same call, whose
        # writes read as an entrypoint's calls from a bare log
        KillCampaign("copy_update_latest", 1, ("sync", "async", "exit"), 0.65, langgraph="1.1.10"),
        # round 61 at 0.25 s: a cancelled `ainvoke` whose plain node ran on to its end
        KillCampaign("cancelled_sync_node", 1, ("sync", "async", "exit"), 0.25, "ainvoke"),
        # round 62 at 0 s: a replay that ran nothing in a thread of a stateful subgraph that
        # paused twice, then an input; its trace shows nothing of the killed invocation
        KillCampaign("subgraph_noop_replay_then_input", 1, ("sync", "async", "exit"), 0.0),
        # round 64 at 0.25 s: an entrypoint's own timeout failed the run; the run after it
        # was killed in a call the entrypoint made after its own lines
        KillCampaign("entrypoint_timeout", 1, ("sync", "async", "exit"), 0.25, "ainvoke"),
        # the same on LangGraph 1.0.10 at 0.3 s, killed in the second input's first node: a
        # release that saves no copy of a replayed checkpoint, so a fresh input of which
        # nothing landed and a run from the first input's checkpoint begin alike
        KillCampaign(
            "subgraph_noop_replay_then_input", 0, ("sync", "async", "exit"), 0.3, langgraph="1.0.10"
        ),
        # round 65 on LangGraph 0.4.10 at 0.35 s (async and exit, `checkpoint_during`): a fork
        # on the pause's checkpoint, asked again and answered; under exit the final save's
        # parent is a step exit never wrote, so the fork has no saved sibling
        KillCampaign("fork_refires_interrupt", 0, ("async", "exit"), 0.35, langgraph="0.4.10"),
        # round 62 on 0.4.10 at 0.35 s: the second input after a graph answered twice ran to
        # its end, killed in its first node; a bare log tells it by node names alone
        KillCampaign(
            "subgraph_noop_replay_then_input", 0, ("async", "exit"), 0.35, langgraph="0.4.10"
        ),
        # round 66 at 0 and 0.25 s: a third input sent to the checkpoint the first turn ended
        # at, not the newest, killed in its first node (a branch begun by an input)
        KillCampaign("delta_time_travel_input", 0, ("sync", "async", "exit"), 0.0),
        KillCampaign("delta_time_travel_input", 0, ("sync", "async", "exit"), 0.25),
        # round 62 on LangGraph 1.0.10 at 0.3 s, killed 0.2 s after the second input's
        # ask_1 asked: the pause was being saved, and the subgraph's puts raced the kill
        KillCampaign(
            "subgraph_noop_replay_then_input", 1, ("sync", "async", "exit"), 0.3, langgraph="1.0.10"
        ),
        # the same at 0.25 s, and on LangGraph 0.6.11 at 0.4 s, read with the mode inferred:
        # nothing dates the kill, which came while the pause's puts were in flight
        KillCampaign("subgraph_noop_replay_then_input", 1, ("sync", "async", "exit"), 0.25),
        KillCampaign(
            "subgraph_noop_replay_then_input", 1, ("sync", "async", "exit"), 0.4, langgraph="0.6.11"
        ),
        # test_command_goto_with_static_breakpoints on LangGraph 1.0.10 at 0.9 s: node2, made due
        # by the Command sent at the breakpoint, saved its writes as a task no id names
        KillCampaign(
            "command_goto_breakpoint", 1, ("sync", "async", "exit"), 0.9, langgraph="1.0.10"
        ),
        # test_multiple_subgraphs_mixed_state_graph on LangGraph 0.6.11 at 0.7 s: the
        # `@entrypoint` invoked twice saved each call's result under no name
        KillCampaign(
            "multiple_subgraphs_mixed_state_graph",
            1,
            ("sync", "async", "exit"),
            0.7,
            langgraph="0.6.11",
        ),
        # LangGraph 1.0.10 on Postgres at 0.65 s: async's puts queued behind one another held
        # the executor's workers, and a fan-out's second task waited for one; and a bare log
        # whose `@task` call logged before its caller
        KillCampaign(
            "join_loop_cond_edge",
            1,
            ("sync", "async", "exit"),
            0.65,
            backend="postgres",
            langgraph="1.0.10",
        ),
        KillCampaign(
            "imp_nested_interrupt",
            0,
            ("sync", "async", "exit"),
            0.65,
            backend="postgres",
            langgraph="1.0.10",
        ),
        # error_handlers_per_node under `ainvoke` on Postgres at 0.3 s, killed 0.2 s into the
        # second failure's handler; stateful_subgraph_interrupt_async on LangGraph 0.4.10 at
        # 0.55 s, two cycles of a stateful graph's runs, one per invocation
        KillCampaign(
            "error_handlers_per_node",
            1,
            ("sync", "async", "exit"),
            0.3,
            "ainvoke",
            backend="postgres",
        ),
        KillCampaign(
            "stateful_subgraph_interrupt_async", 1, ("async", "exit"), 0.55, langgraph="0.4.10"
        ),
        # parent_command_deeply_nested on LangGraph 1.0.10 under `ainvoke` at 0.35 s: the
        # re-entered subgraph ran its finished task again, and the graph that task had run
        KillCampaign(
            "parent_command_deeply_nested",
            1,
            ("sync", "async", "exit"),
            0.35,
            "ainvoke",
            langgraph="1.0.10",
        ),
        # stateful_namespace_isolation on LangGraph 0.6.11 under `ainvoke` at 0.5 s: the
        # resume's resuming flag reached the veggie graph, which dropped its second input
        KillCampaign(
            "stateful_namespace_isolation",
            0,
            ("sync", "async", "exit"),
            0.5,
            "ainvoke",
            langgraph="0.6.11",
        ),
        # recursion_limit_retry on Postgres at 0.55 s: the first input ran its loop to the
        # recursion limit on short turns, the second on long ones was killed in `tools`
        KillCampaign(
            "recursion_limit_retry", 0, ("sync", "async", "exit"), 0.55, backend="postgres"
        ),
        # LangGraph 0.4.10 on Postgres under `ainvoke` at 0.5 s: a join's barrier saved after
        # later writes had filled it, so the resume ran the join's node a step early
        *(
            KillCampaign(
                "join_loop_cond_edge",
                kill,
                ("async", "exit"),
                0.5,
                "ainvoke",
                backend="postgres",
                langgraph="0.4.10",
            )  # fmt: skip
            for kill in (0, 1)
        ),
        # 1.2.15 on SQLite under `ainvoke` at 0.3 s: the kill points its first contact kept
        *(
            KillCampaign(shape, kill, ("sync", "async", "exit"), 0.3, "ainvoke", langgraph="1.2.15")
            for shape, kill in (
                ("error_handler_subgraph_async", 0),
                ("error_handler_subgraph_async", 1),
                ("double_interrupt_subgraph", 1),
                ("multiple_subgraphs_functional", 0),
                ("multiple_subgraphs_functional", 1),
            )
        ),
        # the bare own figure of a worker taking a finished one's place (stop 71's last set)
        KillCampaign("max_concurrency_sends", 0, ("sync", "async", "exit"), 0.65, "ainvoke"),
        # a stable graph's run from the fork copy that saved nothing (stop 72's second set)
        KillCampaign("first_invocation_replayed", 0, ("sync", "async"), 0.2, "ainvoke", "postgres"),
        # two parallel nodes that fail as they start (their import of `Overwrite`, which
        # 0.6.11 does not have), the kill aimed after one of them (stop 72's fourth set)
        KillCampaign(
            "overwrite_parallel_error", 1, ("sync", "async", "exit"), 0.9, langgraph="0.6.11"
        ),
        # stop 72's fifth set (1.0.10 under `ainvoke` at 0.3 s): a join over a node and one of
        # the branches it began; a re-entered subgraph's finished holder, one level down
        *(
            KillCampaign(shape, 1, ("sync", "async", "exit"), 0.3, "ainvoke", langgraph="1.0.10")
            for shape in ("simple_multi_edge", "parent_command_deeply_nested")
        ),
        # a node that fails as it starts beside one running on, on LangGraph 0.4.10 (no
        # `Overwrite`): exit's save on its way out of the killed invocation (stop 73)
        KillCampaign("overwrite_parallel", 0, ("async", "exit"), 0.5, langgraph="0.4.10"),
        # a bare log's node run back to back from a fork copy whose next step never landed
        # (stop 73's second set)
        KillCampaign("fork_replay", 1, ("sync", "async"), 0.8),
        # a kill only the log bounds, between two landings of the last invocation (stop 73)
        KillCampaign("checkpoint_recovery", 0, ("sync", "async", "exit"), 0.35, "ainvoke"),
        # a join inside a loop whose barrier a later round filled as the checkpoint a resume
        # starts from was written, under `ainvoke` (stop 73's first set)
        KillCampaign(
            "join_loop_cond_edge",
            1,
            ("sync", "async", "exit"),
            0.65,
            "ainvoke",
            "postgres",
            "1.0.10",
            tag="ainvoke",
        ),
        # a sync run read without its mode on LangGraph 1.1.10, whose waits show 0.857 s a
        # write for the store's 0.85 s: the database as it stands is sync at this latency
        # (stop 74)
        KillCampaign(
            "send_to_subgraph", 0, ("sync", "async", "exit"), 0.85, "ainvoke", langgraph="1.1.10"
        ),
        # an async run whose database an exit recording could have left, read without its
        # mode: the database as it stands is async at this latency (stop 74's fifth set)
        KillCampaign("imp_nested_interrupt", 1, ("sync", "async", "exit"), 1.1),
        # a subgraph run saved on its way out under exit (LangGraph 0.4.10) whose parent's
        # next step logs nothing of its own: the save's wait is not async's (stop 74's ninth set)
        KillCampaign(
            "subgraph_durability_inherited", 1, ("async", "exit"), 0.8, langgraph="0.4.10"
        ),
        # two nodes' subgraphs in one step, each loop waiting for its own puts under sync in
        # its own thread: the second invocation of a graph run again (stop 75)
        KillCampaign(
            "parallel_stateful_subgraphs_replayed", 1, ("sync", "async"), 0.45, langgraph="1.0.10"
        ),
        KillCampaign(
            "parallel_stateful_subgraphs_replayed",
            1,
            ("sync", "async"),
            0.7,
            "ainvoke",
            langgraph="1.1.10",
        ),
        # a node served from a node cache that outlives the process (SqliteCache): the
        # manifest names it, as the child that ran the graph read it (stop 75)
        KillCampaign("cached_waiting_edge_loop", 0, ("sync", "async", "exit"), 0.5),
        KillCampaign("cached_waiting_edge_loop", 1, ("sync", "async", "exit"), 0.5),
        # a trace's span of a graph that paused, open at a kill only the log's last line
        # bounds: read without its mode, it may have closed at the pause (stop 75's first set)
        KillCampaign("three_level_first_interrupt_forked", 1, ("sync", "async", "exit"), 1.4),
        # an async run read without its mode, async certain, on a store slower than its
        # nominal latency: the database as it stands is async's reading (stop 75's third set)
        KillCampaign(
            "unsaved_subgraph_async",
            1,
            ("sync", "async", "exit"),
            0.3,
            backend="postgres",
            langgraph="1.0.10",
        ),
        # a kill 0.32 s after the innermost of three graphs paused, as the pause rose through
        # them one save at a time under exit (stop 76's shifted set, `--kill-shift 0.3`)
        KillCampaign("middle_checkpoint_replayed", 0, ("sync", "async", "exit"), 0.3, shift=0.3),
        # killed a moment after the aimed node ended, the exit run's last invocation gone
        # past the failure (the pause) the database still shows (stop 76, `--kill-shift 0.6`)
        *(
            KillCampaign(
                shape, 1, ("sync", "async", "exit"), 0.15, "ainvoke", "postgres", shift=0.6
            )  # fmt: skip
            for shape in (
                "sibling_error_cancels",
                "react_agent_tool_interrupt",
                "dynamic_interrupt_subgraph",
            )
        ),
        # the first `Send` worker ended some 15 ms before the kill (stop 76's set of the same
        # shift, taken up at stop 77)
        KillCampaign(
            "batch_update_sends",
            0,
            ("sync", "async", "exit"),
            0.15,
            "ainvoke",
            "postgres",
            shift=0.6,
        ),
        # on a store slower than the nodes (stop 77's fourth set): a stateful subgraph's node
        # that returns a `Command` to the parent, killed 0.05 s after it returned; an
        # `@entrypoint` killed just after its answered `@task` call and the next one ended,
        # before its one save, the database still showing the pause
        *(
            KillCampaign(
                shape,
                kill,
                ("sync", "async", "exit"),
                0.45,
                langgraph="1.1.10",
                shift=0.7,
                sleep=0.25,
            )
            for shape, kill in (("parent_command_stateful", 0), ("interrupts_from_tasks_async", 1))
        ),
        # a node due by a regular edge beside a waiting edge's join, whose task id LangGraph
        # 0.4 derives from a join channel no checkpoint lists yet (stop 77's first set)
        KillCampaign(
            "waiting_edge_plus_regular", 0, ("async", "exit"), 0.25, langgraph="0.4.10", shift=0.5
        ),
    )
}


def record(name: str, folder: Path) -> dict[str, dict[str, Any]]:
    """Run one campaign into `folder` (real kills, real resumes): mode -> its manifest run."""
    from replaylens.examples.langgraph_tests import SHAPES
    from replaylens.killtest.campaign import run_campaign
    from replaylens.killtest.corpus import CorpusPoint

    c = CAMPAIGNS[name]
    if c.langgraph and c.langgraph != version("langgraph"):
        raise RuntimeError(
            f"{name} was written by LangGraph {c.langgraph}: record it again in a virtual "
            f"environment with that release (this one has {version('langgraph')})"
        )
    point = CorpusPoint(SHAPES[c.shape], c.kill, c.shift)
    s = point.shape
    server = None
    if c.backend == "postgres":
        from replaylens.killtest.pgserver import start_server

        server = start_server()
    try:
        dsn = server.create_database("whatif") if server is not None else None
        run_campaign(
            s.graph, folder, input_value=s.input, modes=c.modes, kill_at=(point.node, point.count),
            kill_delay=round(point.units * (c.sleep or UNIT), 4), runs=1,
            put_latencies=(c.latency,), resume_value=s.resume_value,
            has_resume_value=s.has_resume_value, sleep=c.sleep or UNIT,
            then_inputs=s.then, kill_from_invocation=s.kill_from, resume_all=s.resume_all,
            api=c.api or s.api, checkpointer=dsn, keep_schemas=dsn is not None,
        )  # fmt: skip
    finally:
        if server is not None:
            server.stop()
    return runs_in(folder)


def runs_in(folder: Path) -> dict[str, dict[str, Any]]:
    """Mode -> its manifest run, paths absolute (`killtest.manifest.read_manifest`)."""
    from replaylens.killtest.manifest import read_manifest

    manifest = read_manifest(folder)
    # (each run carries the release that wrote it, which the manifest names once)
    return {e["mode"]: {**e, "langgraph": manifest.get("langgraph")} for e in manifest["runs"]}


def load(name: str, tmp_path: Path) -> dict[str, dict[str, Any]]:
    """A recorded campaign, copied out of the checkout first (the evidence stays as recorded):
    mode -> its manifest run, paths absolute. A run that finished before the kill point is
    left out, as `validate` leaves it unjudged."""
    folder = tmp_path / name
    shutil.copytree(ROOT / name, folder)
    runs = {mode: r for mode, r in runs_in(folder).items() if r["killed"]}
    assert set(runs) == set(CAMPAIGNS[name].modes)
    return runs


# --- judging a recording: the what-if it makes, and what the real run measured
def plan(entry: dict[str, Any], form: str = "recorder", given: bool = True) -> Any:
    """The resume plan of one recording (its verdicts, its what-if), its log written in
    `form`, told its mode as a manifest tells it (or not)."""
    from replaylens.killtest.corpus import form_path

    log = str(form_path(entry, form))
    node = str(entry["kill_at"]).rpartition(":")[0]
    rec = (
        manifest_recording(entry, float(entry["kill_delay"]), node, entry.get("langgraph"))
        if given
        else Recording(langgraph=entry.get("langgraph"), cached_nodes=graph_cache(entry))
    )
    return plan_for(entry, log, rec)


def predict(entry: dict[str, Any], form: str = "recorder", given: bool = True) -> Any:
    """The what-if of one recording, told its mode as a manifest tells it (or not)."""
    return plan(entry, form, given).what_if


def figures(outcome: Any) -> tuple[int, int, int]:
    return (outcome.checkpoints_kept, len(outcome.reruns), len(outcome.replayed_lines))


def holds(outcome: Any, real: tuple[int, int, int]) -> bool:
    """Does the prediction (its figures, or its range where it says the evidence cannot
    tell) hold what the real run measured?"""
    own = figures(outcome)
    spans = [outcome.race.get(k) if outcome.race else None
             for k in ("checkpoints_kept", "reruns", "replayed_lines")]  # fmt: skip
    return all(
        (span[0] <= got <= span[1]) if span else mine == got
        for mine, got, span in zip(own, real, spans, strict=True)
    )


def every_prediction_holds(
    runs: dict[str, dict[str, Any]],
    forms: tuple[str, ...] = ("recorder", "langgraph", "bare"),
    same_progress: bool = False,
    cross_mode_only: bool = False,
) -> None:
    """From every recording, in each log form, told the mode or not: each other mode's
    prediction holds what its real run measured (with `same_progress`, only where the two
    kills came at the same point of progress, as `validate` judges: `corpus.run_progress`;
    with `cross_mode_only`, told nothing, not the recorded mode's own, which `validate`
    reports apart and does not judge)."""
    from replaylens.killtest.corpus import run_progress

    for src in runs.values():
        for form in forms:
            for given in (True, False):
                outcomes = predict(src, form, given)
                for target, r in runs.items():
                    if same_progress and run_progress(r, form) != run_progress(src, form):
                        continue
                    if cross_mode_only and not given and target == src["mode"]:
                        continue
                    o = outcomes[target]
                    assert holds(o, real(r, form)), (src["mode"], form, given, target, o.race)


def real(entry: dict[str, Any], form: str = "recorder") -> tuple[int, int, int]:
    """What the real resume of a recording re-ran, counted in `form`'s terms (a trace's
    task spans, or the effect lines the other forms share)."""
    from replaylens.killtest.corpus import traced

    as_traced = traced(entry) if form == "trace" else entry
    assert as_traced is not None, "the recording has no trace"
    m = measure(as_traced)
    return (m.checkpoints, m.reruns, m.lines)


def judged(name: str, tmp_path: Path, forms: tuple[str, ...] = ("bare",)) -> list[Any]:
    """The verdicts (of the bare log, or `forms`) of every run of a recorded campaign (loaded
    into `tmp_path` by `load`), judged as `validate` judges them: each line against whether
    its task really started again."""
    from replaylens.examples.langgraph_tests import SHAPES
    from replaylens.killtest.corpus import CorpusPoint, judge_campaign
    from replaylens.killtest.manifest import read_manifest

    c = CAMPAIGNS[name]
    manifest = read_manifest(tmp_path / name)
    point = CorpusPoint(SHAPES[c.shape], c.kill, c.shift)
    _rows, checks, cut = judge_campaign(manifest, point, forms)
    assert cut == []
    return checks
