"""The report of ``make compat``: build/compat/report.md and report.json from the runs.

Per test and target: its outcome and, in the cudajit runs, whether it used cudajit: a kernel
compiled or launched (``kernel``), only host functions such as ``to_device`` (``api``), or
nothing (``none``: a pass that says nothing about cudajit, counted apart). Causes: the
normalised exceptions of the baseline-passing tests that do not pass with cudajit, ranked
by how many such tests each blocks.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

from causes import first_line, normalise

PASSED = ("passed",)
TOP_CAUSES_PRINTED = 15
# Each cudajit run and the numba-cuda run it is measured against: Numba's CUDA simulator for
# the runs under it, numba-cuda on the simulated GPU for the GPU run.
BASELINE_OF = {"cpu": "numba", "sim": "numba", "sim-gpu": "numba-gpu"}
BASELINES = ("numba", "numba-gpu")


def baseline_of(target: str) -> str:
    """The baseline a cudajit target is compared with."""
    return BASELINE_OF.get(target, "numba")


def _usage(record: dict[str, Any]) -> str:
    """kernel, api or none: what of cudajit the test used."""
    used = record.get("used", {})
    return "kernel" if used.get("kernel") else "api" if used.get("api") else "none"


def classify(record: dict[str, Any] | None, collect_error: str | None,
             cudajit: bool) -> dict[str, Any]:
    """A test's row for one target: outcome, usage and cause."""
    if record is None:
        message = collect_error or "not run (its file stopped early)"
        return {"outcome": "failed", "cause": "collection: " + normalise("", message),
                "message": first_line(message)}
    row: dict[str, Any] = {"outcome": record["outcome"]}
    if cudajit:
        row["used"] = _usage(record)
    if record["outcome"] == "failed":
        row["cause"] = normalise(record.get("exc_type", ""), record.get("message", ""))
        row["message"] = first_line(record.get("message", ""))[:500]
    elif record["outcome"] in ("skipped", "xfailed"):
        row["cause"] = f"{record['outcome']}: " + normalise("", record.get("message", ""))
    return row


def tabulate(runs: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """{test id: {target: row}} over every test any run saw."""
    table: dict[str, dict[str, dict[str, Any]]] = collections.defaultdict(dict)
    ids_by_file: dict[str, set[str]] = collections.defaultdict(set)
    for run in runs.values():
        for rel, result in run["files"].items():
            ids_by_file[rel].update(result["tests"])
    for target, run in runs.items():
        for rel, result in run["files"].items():
            for test in sorted(ids_by_file[rel]):
                table[test][target] = classify(result["tests"].get(test),
                                               result["collect_error"],
                                               target not in BASELINES)
    return table


def _passes_with_cudajit(row: dict[str, Any]) -> bool:
    """Passed, and used cudajit."""
    return row["outcome"] in PASSED and row.get("used") != "none"


def summarise(table: dict[str, dict[str, dict[str, Any]]], target: str) -> dict[str, int]:
    """Counts for one target; for a cudajit target, also against the baseline's passes."""
    counts: collections.Counter[str] = collections.Counter()
    for rows in table.values():
        row = rows[target]
        counts["tests"] += 1
        counts[row["outcome"]] += 1
        if target in BASELINES:
            continue
        if row["outcome"] in PASSED:
            counts[f"passed_using_{row['used']}"] += 1
        if rows[baseline_of(target)]["outcome"] in PASSED:
            counts["baseline_passed"] += 1
            if _passes_with_cudajit(row):
                counts["baseline_passed_passes_with_cudajit"] += 1
            elif row["outcome"] in PASSED:
                counts["baseline_passed_passes_without_cudajit"] += 1
            else:
                counts["baseline_passed_blocked"] += 1
    return dict(counts)


def rank_causes(table: dict[str, dict[str, dict[str, Any]]], target: str
                ) -> list[dict[str, Any]]:
    """Causes of the baseline-passing tests that do not pass on ``target``, most tests first."""
    blocked: dict[str, list[str]] = collections.defaultdict(list)
    for test, rows in table.items():
        row = rows[target]
        if rows[baseline_of(target)]["outcome"] in PASSED and row["outcome"] not in PASSED:
            blocked[row.get("cause", row["outcome"])].append(test)
    ranked = sorted(blocked.items(), key=lambda item: (-len(item[1]), item[0]))
    return [{"cause": cause, "count": len(tests), "tests": sorted(tests)}
            for cause, tests in ranked]


def rank_failures(table: dict[str, dict[str, dict[str, Any]]], target: str
                  ) -> list[dict[str, Any]]:
    """Causes of the tests that fail on a baseline, most tests first: on ``numba-gpu`` each is
    the simulated GPU's (numba-cuda passes these tests on GPUs)."""
    failing: dict[str, list[str]] = collections.defaultdict(list)
    for test, rows in table.items():
        row = rows[target]
        if row["outcome"] == "failed":
            failing[row.get("cause", "failed")].append(test)
    ranked = sorted(failing.items(), key=lambda item: (-len(item[1]), item[0]))
    return [{"cause": cause, "count": len(tests), "tests": sorted(tests)}
            for cause, tests in ranked]


def per_file(table: dict[str, dict[str, dict[str, Any]]], targets: list[str]
             ) -> dict[str, dict[str, collections.Counter[str]]]:
    """{file: {target: counts}}."""
    files: dict[str, dict[str, collections.Counter[str]]] = collections.defaultdict(
        lambda: {t: collections.Counter() for t in targets})
    for test, rows in table.items():
        rel = test.split("::")[0]
        for target in targets:
            row = rows[target]
            counts = files[rel][target]
            counts[row["outcome"]] += 1
            if target not in BASELINES and row["outcome"] in PASSED:
                counts["passed_no_cudajit" if row["used"] == "none" else "passed_cudajit"] += 1
    return dict(sorted(files.items()))


def _md_escape(text: str) -> str:
    """Text for one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(summary: dict[str, dict[str, int]], causes: dict[str, list[dict[str, Any]]],
             files: dict[str, Any], table: dict[str, Any], targets: list[str],
             seconds: dict[str, int]) -> str:
    """report.md: the summary, the causes, the files, the baseline-passing tests."""
    cudajit_targets = [t for t in targets if t not in BASELINES]
    baselines = [t for t in targets if t in BASELINES]
    base = summary["numba"]
    lines = ["# numba-cuda's tests against cudajit", "",
             "Written by `make compat` (scripts/compat). Baselines: `numba`, numba-cuda on its "
             "own simulator (`NUMBA_ENABLE_CUDASIM=1`), for `cpu` (`CUDAJIT_DEVICE=cpu`) and "
             "`sim` (the simulated GPU), which run the same files and settings with "
             "`numba.cuda` bound to cudajit; `numba-gpu`, numba-cuda itself with cudajit's "
             "simulated GPU as its CUDA driver (cudajit-sim; the whole suite, GPU-only tests "
             "included), for `sim-gpu`, cudajit on the simulated GPU without Numba's "
             "simulator.", "", summary_table(summary, targets, seconds), ""]
    for target in cudajit_targets:
        lines += [f"## Causes ({target}): baseline-passing tests that do not pass", "",
                  "| # | tests | cause | example |", "|---|---|---|---|"]
        for i, cause in enumerate(causes[target], 1):
            lines.append(f"| {i} | {cause['count']} | {_md_escape(cause['cause'])} | "
                         f"`{cause['tests'][0]}` |")
        lines.append("")
    header = "| file | " + " | ".join(f"{b} passed" for b in baselines) + " | " + " | ".join(
        f"{t} passed (cudajit) | {t} passed without cudajit | {t} failed" for t in
        cudajit_targets) + " |"
    lines += ["## Per file", "", header,
              "|---" * (1 + len(baselines) + 3 * len(cudajit_targets)) + "|"]
    for rel, counts in files.items():
        if not any(counts[t]["passed"] for t in targets):
            continue
        cells = [rel] + [str(counts[b]["passed"]) for b in baselines]
        for t in cudajit_targets:
            cells += [str(counts[t]["passed_cudajit"]), str(counts[t]["passed_no_cudajit"]),
                      str(counts[t]["failed"])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Files with no test passing anywhere are left out; "
              f"{base.get('tests', 0)} tests in {len(files)} files in all "
              "(report.json has every test).", "",
              "## Per test (baseline-passing)", "",
              "| test | " + " | ".join(cudajit_targets) + " |",
              "|---" * (1 + len(cudajit_targets)) + "|"]
    for test, rows in sorted(table.items()):
        if not any(rows[b]["outcome"] in PASSED for b in baselines):
            continue
        cells = [f"`{test}`"]
        for t in cudajit_targets:
            row = rows[t]
            if rows[baseline_of(t)]["outcome"] not in PASSED:
                cells.append("(baseline did not pass)")
                continue
            cell = row["outcome"] + ("" if row["outcome"] not in PASSED else
                                     f" ({row['used']})")
            if "cause" in row:
                cell += ": " + _md_escape(row["cause"])
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


SUMMARY_ROWS = [
    ("tests", "tests collected"),
    ("passed", "passed"),
    ("passed_using_kernel", "… of which compiling or launching a cudajit kernel"),
    ("passed_using_api", "… of which calling cudajit host functions only"),
    ("passed_using_none", "… of which without calling cudajit (counted apart)"),
    ("failed", "failed (or errors)"),
    ("skipped", "skipped"),
    ("xfailed", "expected failures"),
    ("baseline_passed", "baseline-passing tests"),
    ("baseline_passed_passes_with_cudajit", "… passing with cudajit"),
    ("baseline_passed_passes_without_cudajit", "… passing without calling cudajit"),
    ("baseline_passed_blocked", "… not passing (the causes below)"),
]


def summary_table(summary: dict[str, dict[str, int]], targets: list[str],
                  seconds: dict[str, int]) -> str:
    """The headline numbers as a Markdown table, a column per target."""
    lines = ["| | " + " | ".join(targets) + " |", "|---" * (1 + len(targets)) + "|"]
    for key, label in SUMMARY_ROWS:
        cells = [str(summary[t].get(key, 0)) if t not in BASELINES or not key.startswith(
            ("passed_", "baseline_")) else "" for t in targets]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("| minutes | " + " | ".join(f"{seconds[t] / 60:.1f}" for t in targets) + " |")
    return "\n".join(lines)


def doc_examples(doc_runs: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """numba-cuda's documentation examples per cudajit target: {target: {passed, tests,
    rows}} and the report's section (Markdown lines)."""
    table = tabulate(doc_runs)
    targets = list(doc_runs)
    result = {t: {"tests": len(table),
                  "passed": sum(rows[t]["outcome"] in PASSED for rows in table.values())}
              for t in targets}
    lines = ["## numba-cuda's documentation examples", "",
             "Whole programs from numba-cuda's documentation (`doc_examples/`). They skip on "
             "its simulator (it cannot import `cuda` inside a function), so there is no "
             "baseline here; they run with `skip_on_cudasim` lifted.", "",
             "| | " + " | ".join(targets) + " |", "|---" * (1 + len(targets)) + "|",
             "| passed | " + " | ".join(f"{result[t]['passed']} of {result[t]['tests']}"
                                       for t in targets) + " |", "",
             "| test | " + " | ".join(targets) + " |", "|---" * (1 + len(targets)) + "|"]
    for test, rows in sorted(table.items()):
        cells = [f"`{test}`"]
        for t in targets:
            row = rows[t]
            cells.append(row["outcome"] + (": " + _md_escape(row["cause"]) if "cause" in row
                                           else ""))
        lines.append("| " + " | ".join(cells) + " |")
    for t in targets:
        result[t]["rows"] = {test: rows[t] for test, rows in table.items()}
    return result, lines + [""]


def write(runs: dict[str, Any], out: Path, doc_runs: dict[str, Any] | None = None) -> str:
    """Write report.md and report.json under ``out``; return the summary and top causes."""
    targets = list(runs)
    table = tabulate(runs)
    summary = {t: summarise(table, t) for t in targets}
    causes = {t: rank_causes(table, t) for t in targets if t not in BASELINES}
    files = per_file(table, targets)
    seconds = {t: runs[t]["seconds"] for t in targets}
    data = {"summary": summary, "seconds": seconds, "causes": causes,
            "files": {rel: {t: dict(c) for t, c in counts.items()}
                      for rel, counts in files.items()},
            "tests": table}
    text_md = markdown(summary, causes, files, table, targets, seconds)
    text = [summary_table(summary, targets, seconds)]
    if "numba-gpu" in targets:
        failures = rank_failures(table, "numba-gpu")
        data["numba_gpu_failures"] = failures
        section = ["## numba-gpu: numba-cuda's failures on the simulated GPU", "",
                   "numba-cuda passes these on GPUs: each is a fidelity defect of the simulated "
                   "GPU or its driver, or something it does not model (docs/compatibility.md).",
                   "", "| # | tests | cause | example |", "|---|---|---|---|"]
        section += [f"| {i} | {f['count']} | {_md_escape(f['cause'])} | `{f['tests'][0]}` |"
                    for i, f in enumerate(failures, 1)]
        text_md += "\n" + "\n".join(section) + "\n"
        text.append("\nnumba-gpu failures, by tests:")
        text += [f"{f['count']:5d}  {f['cause']}" for f in failures[:TOP_CAUSES_PRINTED]]
    if doc_runs:
        data["doc_examples"], section = doc_examples(doc_runs)
        text_md += "\n" + "\n".join(section)
        text.append("\nnumba-cuda's documentation examples: " + ", ".join(
            f"{t} {d['passed']} of {d['tests']} passed" for t, d in data["doc_examples"].items()))
    (out / "report.json").write_text(json.dumps(data, indent=1))
    (out / "report.md").write_text(text_md)
    for target, ranked in causes.items():
        text.append(f"\nTop causes ({target}), by baseline-passing tests blocked:")
        text += [f"{c['count']:5d}  {c['cause']}" for c in ranked[:TOP_CAUSES_PRINTED]]
    text.append(f"\nReport: {out / 'report.md'} and report.json")
    return "\n".join(text)
