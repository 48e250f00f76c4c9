"""Configs, laws, plans and the DG solver on the host backend: the 2D Maxwell cavity against
its exact mode computed here with numpy, probes, the callback loop, the state as numpy and
through DLPack, and errors as Python exceptions with the C++ message."""

import math

import numpy as np
import pytest

import rtdg
from conftest import DATA, needs_gmsh

CAVITY = {
    "run": {"name": "cavity", "backend": "host"},
    "law": {"file": str(DATA / "laws" / "maxwell2d_tm.toml")},
    "mesh": {"file": str(DATA / "geometries" / "square.geo"), "parameters": {"h": 0.5}},
    "discretization": {"order": 3},
    "time": {"final": 0.25, "cfl": 0.5},
    "boundary": {"walls": "pec"},
    "initial": {"condition": "law"},
    "probe": [{"name": "centre", "points": [[0.5, 0.5], [0.25, 0.75]], "fields": ["Ez"], "every": 2}],
}


def exact_ez(x, y, t):
    return np.sin(np.pi * x) * np.sin(np.pi * y) * np.cos(np.pi * math.sqrt(2) * t)


def test_config_from_path_and_overrides():
    cfg = rtdg.Config(DATA / "maxwell" / "cavity2d.toml", ["discretization.order=2", "run.backend=host"])
    assert cfg.order == 2 and cfg.backend == "host" and cfg.name == "cavity2d"
    assert cfg.law_file.name == "maxwell2d_tm.toml" and cfg.law_file.is_absolute()
    assert "order = 2" in cfg.effective_toml


def test_config_errors_name_file_line_and_column(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[run]\nname = "x"\n\n[discretization]\norder = 99\n')
    with pytest.raises(rtdg.ConfigError) as info:
        rtdg.Config(path)
    text = str(info.value)
    assert f"{path}:5:" in text and "order" in text
    files = {d[0] for d in info.value.diagnostics}
    lines = {d[1] for d in info.value.diagnostics}
    assert str(path) in files and 5 in lines


def test_config_from_dict_reports_its_own_lines(tmp_path):
    cfg = rtdg.config_from_dict(CAVITY, base_dir=tmp_path)
    assert cfg.order == 3 and cfg.final_time == 0.25
    bad = dict(CAVITY, time={"final": -1.0})
    with pytest.raises(rtdg.ConfigError, match=r"config\.toml:\d+:\d+: error: .*time\.final"):
        rtdg.config_from_dict(bad, base_dir=tmp_path)


def test_law_from_a_string_and_its_errors():
    text = (DATA / "laws" / "advection.toml").read_text()
    law = rtdg.Law(text, "advection.toml")
    assert law.name and law.component_names == ["u"] and law.has_exact
    broken = text.replace('[exact]', '[exact]\n# broken below', 1)
    broken = broken.replace("sin(", "sinn(", 1) if "sin(" in broken else broken + '\n[bogus]\nx = 1\n'
    with pytest.raises(rtdg.LawError) as info:
        rtdg.Law(broken, "broken.toml")
    assert "broken.toml:" in str(info.value)
    assert info.value.diagnostics and info.value.diagnostics[0][0] == "broken.toml" and info.value.diagnostics[0][1] > 0


def test_bad_plan_text_names_the_word():
    with pytest.raises(rtdg.Error, match="no_such_word"):
        rtdg.plan_from_text("no_such_word=3")


@needs_gmsh
def test_cavity_against_the_exact_mode(tmp_path):
    solver = rtdg.Solver(rtdg.config_from_dict(CAVITY, base_dir=tmp_path))
    assert solver.component_names == ["Hx", "Hy", "Ez"]
    C, K, Np = solver.shape
    assert C == 3 and Np == 10 and solver.dimension == 2 and solver.t == 0
    xyz = solver.coordinates()
    assert xyz.shape == (2, K, Np)
    ez0 = solver.state()[2]
    np.testing.assert_allclose(ez0, exact_ez(xyz[0], xyz[1], 0.0), atol=1e-12)

    plan = solver.plan
    assert rtdg.plan_from_text(str(plan)) == plan and solver.plan_source

    seen = []
    solver.advance(0.25, callback=lambda s: seen.append((s.steps, s.t)), every=3)
    assert solver.t == 0.25
    assert seen[-1] == (solver.steps, 0.25) and all(step % 3 == 0 for step, _ in seen[:-1])
    # Order 3 on h = 0.5: a few per cent of the mode's amplitude at most.
    ez = solver.state()[2]
    error = np.abs(ez - exact_ez(xyz[0], xyz[1], 0.25)).max()
    assert error < 0.03, error
    # The law's exact solution agrees with the one computed here.
    np.testing.assert_allclose(solver.exact()[2], exact_ez(xyz[0], xyz[1], 0.25), atol=1e-12)
    assert solver.l2_norm(solver.state() - solver.exact()) < 0.02

    # Probes: recorded every second step from t = 0, interpolated in the element.
    probe = solver.probes()["centre"]
    assert probe["columns"] == ["Ez@0", "Ez@1"]
    assert list(probe["step"]) == list(range(0, solver.steps + 1, 2))
    expected = exact_ez(0.5, 0.5, probe["time"])
    assert np.abs(probe["values"][:, 0] - expected).max() < 0.03
    assert np.abs(probe["values"][:, 1] - exact_ez(0.25, 0.75, probe["time"])).max() < 0.03


@needs_gmsh
def test_early_stop_state_round_trip_and_device_view(tmp_path):
    solver = rtdg.Solver(rtdg.config_from_dict(CAVITY, base_dir=tmp_path))
    solver.advance(1.0, callback=lambda s: s.steps < 4)  # False after the 4th step: stop
    assert solver.steps == 4 and solver.t == pytest.approx(4 * solver.dt)
    state = solver.state()
    view = solver.state_view()
    assert view.readonly and view.backend.name == "host"
    host_view = np.from_dlpack(view)  # zero-copy on the host backend
    assert host_view.ctypes.data == view.ptr
    c, k, i = 2, K_MID(solver), 3
    assert host_view[solver.device_index(c, k, i)] == state[c, k, i]
    # set_state takes (components, elements, nodes) values back.
    solver.set_state(np.zeros_like(state))
    assert solver.max_abs() == 0
    solver.set_state(state)
    np.testing.assert_array_equal(solver.state(), state)
    with pytest.raises(ValueError, match="values"):
        solver.set_state(np.zeros(5))
    solver.step(2)
    assert solver.steps == 6
    with pytest.raises(ValueError, match=r"no \[farfield\] table"):
        solver.far_field()


def K_MID(solver):
    return solver.shape[1] // 2


@needs_gmsh
def test_solver_errors_carry_the_cpp_message(tmp_path):
    missing = dict(CAVITY, boundary={"nowhere": "pec"})
    if not DATA.joinpath("geometries", "square.geo").exists():
        pytest.skip("no data folder")
    try:
        rtdg.Solver(rtdg.config_from_dict(missing, base_dir=tmp_path))
    except rtdg.Error as e:
        assert "nowhere" in str(e)
    else:
        pytest.fail("a boundary the mesh lacks must raise")


@needs_gmsh
def test_solver_from_a_dict_and_plan_tuning(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    solver = rtdg.Solver(CAVITY)
    solver.step(3)
    before = solver.state()
    off = solver.tune_plan("off")
    assert off["tuning"] is None and isinstance(off["plan"], rtdg.Plan)
    tuned = solver.tune_plan("force", budget=3)
    result = tuned["tuning"]
    assert isinstance(result, rtdg.TuningResult) and result.variants
    assert result.variants[0]["status"] in ("ok", "budget")
    assert solver.plan == tuned["plan"] and "tuned" in tuned["source"]
    np.testing.assert_array_equal(solver.state(), before)  # the state survives the tuning
    with pytest.raises(ValueError, match="force"):
        solver.tune_plan("sometimes")
