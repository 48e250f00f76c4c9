"""On a CUDA GPU (marked gpu; skipped without one): kernels and solvers on the cuda backend, and
zero-copy DLPack exchange with CuPy and PyTorch in both directions, checked by pointer and by
value. Run with: python3 -m pytest -m gpu tests/python (ctest: Python.pytest_gpu)."""

import numpy as np
import pytest

import rtdg
from conftest import DATA

pytestmark = pytest.mark.gpu

AXPY = r"""
RTCG_KERNEL(axpy)(double* RTCG_RESTRICT y, const double* RTCG_RESTRICT x, double a, long long n) {
  RTCG_GLOBAL_LOOP(i, n) { y[i] = a * x[i] + y[i]; }
}
"""


def test_cuda_source_module_and_generators(cuda):
    n = 1 << 20
    x = np.random.default_rng(3).standard_normal(n)
    xd = rtdg.to_device(x, backend=cuda)
    yd = rtdg.to_device(np.ones(n), backend=cuda)
    assert xd.__dlpack_device__()[0] == 2
    axpy = rtdg.SourceModule(AXPY, backend=cuda, name="axpy_gpu").get_function("axpy")
    axpy(yd, xd, 2.0, n, grid=(n + 255) // 256, block=256)
    np.testing.assert_array_equal(yd.get(), 2.0 * x + 1.0)
    # Plain CUDA compiles on the cuda backend.
    plain = rtdg.SourceModule("__global__ void iota(int* v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
                              " if (i < n) v[i] = i; }", backend=cuda).get_function("iota")
    v = rtdg.zeros(1000, "int32", backend=cuda)
    plain(v, 1000, grid=4, block=256)
    np.testing.assert_array_equal(v.get(), np.arange(1000))
    dot = rtdg.ReductionKernel("float64", "0", "a + b", "x[i] * y[i]", "const double* x, const double* y", backend=cuda)
    assert abs(dot(xd, xd) - float(x @ x)) < 1e-9 * float(x @ x)


def test_cupy_both_directions_without_a_copy(cuda):
    cupy = pytest.importorskip("cupy")
    # CuPy -> rtdg: the same device memory; an rtdg kernel's writes are what CuPy reads.
    c = cupy.arange(4096, dtype=cupy.float64)
    r = rtdg.from_dlpack(c)
    assert r.ptr == c.data.ptr and r.shape == (4096,) and r.backend.name == "cuda"
    twice = rtdg.ElementwiseKernel("double* y", "y[i] = 2 * y[i]", backend=cuda)
    twice(r)
    cuda.synchronize()
    cupy.testing.assert_array_equal(c, 2 * cupy.arange(4096, dtype=cupy.float64))
    twice(c)  # CuPy arrays pass straight to kernels
    cuda.synchronize()
    assert float(c[10]) == 40.0
    # rtdg -> CuPy.
    a = rtdg.to_device(np.arange(1000, dtype=np.float32), backend=cuda)
    v = cupy.from_dlpack(a)
    assert v.data.ptr == a.ptr and v.dtype == cupy.float32
    cupy.testing.assert_array_equal(v, cupy.arange(1000, dtype=cupy.float32))
    v *= 3
    cupy.cuda.get_current_stream().synchronize()
    np.testing.assert_array_equal(a.get(), 3 * np.arange(1000, dtype=np.float32))


def test_torch_both_directions_without_a_copy(cuda):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this PyTorch has no CUDA")
    t = torch.arange(2048, dtype=torch.float64, device="cuda")
    r = rtdg.from_dlpack(t)
    assert r.ptr == t.data_ptr() and r.shape == (2048,)
    rtdg.ElementwiseKernel("double* y", "y[i] = y[i] + 1", backend=cuda)(r)
    cuda.synchronize()
    assert torch.equal(t, torch.arange(2048, dtype=torch.float64, device="cuda") + 1)
    a = rtdg.to_device(np.arange(12, dtype=np.int64).reshape(3, 4), backend=cuda)
    u = torch.from_dlpack(a)
    assert u.data_ptr() == a.ptr and tuple(u.shape) == (3, 4) and u.device.type == "cuda"
    assert torch.equal(u.cpu(), torch.arange(12).reshape(3, 4))
    u.mul_(5)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(a.get(), 5 * np.arange(12).reshape(3, 4))


def cavity3d(backend):
    # The cube cavity's exact mode on the stored mesh (no Gmsh needed).
    return {"run": {"name": "cavity3d", "backend": backend},
            "law": {"file": str(DATA / "laws" / "maxwell3d.toml")},
            "mesh": {"file": str(DATA / "meshes" / "cube_h035.h5")},
            "discretization": {"order": 2}, "time": {"final": 0.1, "cfl": 0.5},
            "boundary": {"walls": "pec"}, "initial": {"condition": "law"}}


def test_solver_on_cuda_state_view_through_dlpack(cuda, tmp_path):
    cupy = pytest.importorskip("cupy")
    solver = rtdg.Solver(rtdg.config_from_dict(cavity3d("cuda"), base_dir=tmp_path))
    assert solver.backend.name == "cuda"
    solver.step(5)
    state = solver.state()
    view = cupy.from_dlpack(solver.state_view())
    c, k, i = 4, solver.shape[1] // 3, 2
    assert float(view[solver.device_index(c, k, i)]) == state[c, k, i]
    # The same steps on the host backend: the same numbers to rounding.
    host = rtdg.Solver(rtdg.config_from_dict(cavity3d("host"), base_dir=tmp_path))
    host.step(5)
    assert np.abs(state - host.state()).max() < 1e-10 * np.abs(state).max()
