"""pytest set-up for the rtdg Python package (ctest: Python.pytest, Python.pytest_gpu).

Tests marked `gpu` need a usable CUDA device and skip without one; the rest run on the host
backend. RTDG_SOURCE_DIR names the repository (ctest sets it; default: two folders up)."""

import os
import pathlib

import pytest

import rtdg

SOURCE_DIR = pathlib.Path(os.environ.get("RTDG_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DATA = SOURCE_DIR / "data"
HAVE_GMSH = os.environ.get("RTDG_HAVE_GMSH", "1") not in ("0", "OFF", "FALSE", "")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped without one)")


def pytest_collection_modifyitems(config, items):
    if rtdg.cuda_available():
        return
    skip = pytest.mark.skip(reason="no usable CUDA device: " + rtdg.cuda_unavailable_reason())
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


# ctest's Python.pytest_gpu runs `-m gpu`; without a GPU every test skips and the session ends
# with 77, which ctest reports as skipped (SKIP_RETURN_CODE), as it does the gpu gtests.
GPU_SKIPPED = 77


def pytest_sessionfinish(session, exitstatus):
    if session.config.getoption("markexpr") == "gpu" and not rtdg.cuda_available() and exitstatus in (0, 5):
        session.exitstatus = GPU_SKIPPED


@pytest.fixture
def host():
    return rtdg.backend("host")


@pytest.fixture
def cuda():
    return rtdg.backend("cuda")


needs_gmsh = pytest.mark.skipif(not HAVE_GMSH, reason="this rtdg was built without Gmsh (the configs mesh .geo files)")
