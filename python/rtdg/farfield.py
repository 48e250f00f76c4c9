"""Far-field results of a solver with a [farfield] table, as numpy arrays."""

import os
import tempfile

import numpy as np


def _read(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: data[:, j] for j, name in enumerate(header)}


def far_field(solver):
    """far_field() -> list of dicts, one per frequency

    The far field from the DFT sums accumulated so far (docs/scattering.md), computed as
    `rtdg run` computes it for its farfield/ files. Each dict has "frequency", "omega",
    "wavenumber", "samples" and, in 2D (TM), "angle_deg", "width" (the scattering width) and
    "far_field" (complex u(phi)); in 3D "eplane_angle_deg", "eplane_rcs", "hplane_angle_deg",
    "hplane_rcs" and, with farfield.grid, "grid_rcs" (n_theta x n_phi). Raises ValueError when
    the config has no [farfield] table, and rtdg.Error before the first sample."""
    if not solver.has_far_field:
        raise ValueError("far_field: the config has no [farfield] table")
    with tempfile.TemporaryDirectory(prefix="rtdg-farfield-") as directory:
        solver._write_far_field(directory)
        folder = os.path.join(directory, "farfield")
        if not os.path.exists(os.path.join(folder, "frequencies.csv")):
            raise ValueError("far_field: no sample yet (the transform samples from farfield.start on)")
        frequencies = _read(os.path.join(folder, "frequencies.csv"))
        results = []
        for i, index in enumerate(frequencies["index"].astype(int)):
            r = {key: float(frequencies[key][i]) for key in ("frequency", "omega", "wavenumber", "samples", "window")}
            stem = os.path.join(folder, f"f{index}")
            if os.path.exists(stem + "_width.csv"):
                w = _read(stem + "_width.csv")
                r["angle_deg"] = w["angle_deg"]
                r["width"] = w["width"]
                r["far_field"] = w["re"] + 1j * w["im"]
            else:
                for plane in ("eplane", "hplane"):
                    p = _read(f"{stem}_{plane}.csv")
                    r[f"{plane}_angle_deg"] = p["angle_deg"]
                    r[f"{plane}_rcs"] = p["rcs"]
                if os.path.exists(stem + "_grid.csv"):
                    g = _read(stem + "_grid.csv")
                    n_theta = len(np.unique(g["theta_deg"]))
                    r["grid_rcs"] = g["rcs"].reshape(n_theta, -1)
            results.append(r)
        return results
