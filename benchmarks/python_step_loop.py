#!/usr/bin/env python3
"""A Python-driven time loop against `rtdg run`: milliseconds per step of solver.step() called
from Python once per step, and of `rtdg run`'s own loop, on the same config, mesh and kernel
plan (docs/python.md, "Benchmark").

Both loops are timed the same way: from the first step after set-up to the last, with one wait
for the device at the end, N steps each; `rtdg run` reports its loop's time without output
(summary.json, seconds_per_step), so snapshots and checkpoints are turned off and only the
config's probes run in both. The Python solver chooses the plan (run.plan, else the tuning
database as RTDG_TUNE says) and `rtdg run` is given the same one as run.plan.

On the GPU machine, with a build that has the Python package (RTDG_WITH_PYTHON; pybind11 from
.deps/ made by scripts/gpu-deps) and the 200k-tet sphere mesh of scripts/gpu-dg:

    PYTHONPATH=build/python python3 benchmarks/python_step_loop.py --rtdg build/apps/rtdg \\
        --set 'mesh.file=".deps/meshes/sphere_200k.h5"' --set run.backend=cuda --set discretization.order=4 \\
        --steps 300 --json benchmarks/results/python-step-loop-<device>.json

The JSON records the device, date, commit, plan and both numbers; the acceptance is a Python
loop within 5 % of `rtdg run` (ratio <= 1.05).
"""

import argparse
import datetime
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import rtdg

ROOT = pathlib.Path(__file__).resolve().parents[1]


def python_loop(config, overrides, steps, repeats):
    solver = rtdg.Solver(config, overrides)
    backend = solver.backend
    per_step = []
    for _ in range(repeats):
        backend.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            solver.step()
        backend.synchronize()
        per_step.append((time.perf_counter() - start) / steps)
    return solver, per_step


def rtdg_run(binary, config, overrides, plan, steps, dt, repeats):
    per_step = []
    with tempfile.TemporaryDirectory(prefix="rtdg-bench-") as out:
        for _ in range(repeats):
            command = [binary, "run", str(config), "--overwrite"]
            for o in overrides + [
                f'run.plan="{plan}"',
                f"time.final={steps * dt!r}",
                "output.interval=0",
                "output.vtu=false",
                "output.hdf5=false",
                "output.error=false",
                "checkpoint.interval=0",
                f'run.output_dir="{out}"',
            ]:
                command += ["--set", o]
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            summary = json.loads(pathlib.Path(out, "summary.json").read_text())
            if summary["steps"] != steps:
                raise SystemExit(f"rtdg run took {summary['steps']} steps, not {steps}")
            per_step.append(summary["seconds_per_step"])
    return per_step


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rtdg", required=True, help="the rtdg executable (build/apps/rtdg)")
    parser.add_argument("--config", default=str(ROOT / "data" / "maxwell" / "sphere.toml"))
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="key=value, as rtdg run --set")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="write the result here")
    args = parser.parse_args()

    overrides = list(args.overrides) + ["output.error=false"]
    solver, python_times = python_loop(args.config, overrides, args.steps, args.repeats)
    plan = str(solver.plan)
    run_times = rtdg_run(args.rtdg, args.config, overrides, plan, args.steps, solver.dt, args.repeats)
    python_ms = 1e3 * statistics.median(python_times)
    run_ms = 1e3 * statistics.median(run_times)
    C, K, Np = solver.shape
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    result = {
        "benchmark": "python_step_loop",
        "device": solver.backend.device["name"],
        "backend": solver.backend.name,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        "config": os.path.relpath(args.config, ROOT),
        "overrides": args.overrides,
        "elements": K,
        "order": solver.order,
        "dofs": C * K * Np,
        "plan": plan,
        "plan_source": solver.plan_source,
        "steps": args.steps,
        "repeats": args.repeats,
        "python_ms_per_step": python_ms,
        "python_ms_per_step_runs": [1e3 * t for t in python_times],
        "rtdg_run_ms_per_step": run_ms,
        "rtdg_run_ms_per_step_runs": [1e3 * t for t in run_times],
        "ratio": python_ms / run_ms,
    }
    print(f"{result['device']}: {K} elements, order {solver.order}, plan {plan}")
    print(f"  python solver.step() loop: {python_ms:.4g} ms/step")
    print(f"  rtdg run:                  {run_ms:.4g} ms/step")
    print(f"  ratio {result['ratio']:.3f} ({'within' if result['ratio'] <= 1.05 else 'outside'} 5 %)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
